import t from 'tap';
import { SEP } from '../../../src/demand/asked.js';
import { buildReport, formatReport, groupTopics, mostAsked, SHOWN } from '../../../src/demand/report.js';
import type { ShownItem } from '../../../src/demand/store.js';

const counted = (text: string, clients = 5, asks = clients) => ({ text, clients, asks });
const item = (parts: string[], clients = 5, asks = clients, firstDay = 20_010, lastDay = firstDay): ShownItem => ({
  key: parts.join(SEP),
  clients,
  asks,
  firstDay,
  lastDay,
});
const context = { recording: true, store: 'memory' as const, minClients: 5, windowDays: 30, names: new Map([['dog-training', 'Dog training']]) };

t.test('questions near no category are grouped by what they share, headed by the most asked question, never by one everyday word (issue 32)', async (t) => {
  const groups = await groupTopics([
    counted('my 15 year old barely says a word and keeps to his room', 9),
    counted('toilet keeps running after flushing', 8),
    counted('wifi keeps dropping every evening', 7),
    counted('how do i keep my sourdough starter alive', 6),
    counted('sourdough starter smells like acetone', 5),
  ]);
  t.same(groups.map((g) => g.text), [
    'my 15 year old barely says a word and keeps to his room',
    'toilet keeps running after flushing',
    'wifi keeps dropping every evening',
    'how do i keep my sourdough starter alive',
  ], 'one shared everyday word ("keeps") joins nothing; each group is headed by a question');
  t.same(groups[3]!.related.map((r) => r.text), ['sourdough starter smells like acetone'], 'two shared words ("sourdough", "starter") join the less asked question to the more asked one');
});

t.test('a word or phrase joins a group and is shown only when asked more than its head: it gathers questions none of which reached k', async (t) => {
  const groups = await groupTopics(
    [counted('best flour for sourdough bread', 6)],
    [counted('sourdough', 20), counted('sourdough bread', 6), counted('mortgage rates', 30)]
  );
  t.same(groups.map((g) => g.text), ['best flour for sourdough bread'], 'a phrase heads no group, however often asked');
  t.same(groups[0]!.related.map((r) => r.text), ['sourdough'], 'a word asked more than the head shows beside it; one asked as often does not');
});

t.test('the report lists what each category answered, most answering first, so that a curator can spot a wrong answer (issue 32)', async (t) => {
  const snapshot = {
    fromDay: 20_000,
    toDay: 20_029,
    totals: { [`outcome${SEP}answered`]: 12, [`answered${SEP}dog-training`]: 9, [`answered${SEP}cat-care`]: 3 },
    items: [
      item(['answered-query', 'dog-training', 'how do i stop my puppy biting'], 8, 8, 20_003, 20_010),
      item(['answered-query', 'dog-training', 'hot dog stand permit'], 5),
      ...Array.from({ length: SHOWN.answered + 2 }, (_, i) => item(['answered-query', 'cat-care', `cat question ${i}`])),
    ],
  };
  const report = await buildReport(snapshot, context);
  t.same(report.answered.map((a) => [a.slug, a.name, a.answered]), [['dog-training', 'Dog training', 9], ['cat-care', 'cat-care', 3]]);
  t.same(report.answered[0]!.queries.map((q) => q.text), ['how do i stop my puppy biting', 'hot dog stand permit'], 'most asked first');
  t.equal(report.answered[1]!.queries.length, SHOWN.answered, 'bounded per category');
  const printed = formatReport(report);
  t.match(printed, /Answered, per category \(is each question its topic\? a wrong one is turned away with a not-about entry\):\n {2}Dog training \(dog-training\): 9 answered\n {5}questions: "how do i stop my puppy biting" \(8 clients, 8 asks, 2024-10-07 to 2024-10-14\), "hot dog stand permit" \(5 clients, 5 asks, on 2024-10-14\)/, 'with the first and last day each was asked');
});

t.test('a category\'s list shows its most asked: by clients, then asks, then longer phrases, then text', async (t) => {
  const items = [counted('b', 5, 9), counted('a', 5, 9), counted('x y', 5, 9), counted('top', 9, 9), counted('c', 5, 12), counted('d', 4, 40)];
  t.same(mostAsked(items, 4).map((i) => i.text), ['top', 'c', 'x y', 'a']);
  t.same(mostAsked(items, 10).map((i) => i.text), ['top', 'c', 'x y', 'a', 'b', 'd'], 'all of them when fewer');
  t.same(mostAsked([], 3), []);
});

t.test('a window of 2,500 answered and 400 declined questions: each category\'s ten most asked, most asked first, and twenty groups', async (t) => {
  const many = Array.from({ length: 2_500 }, (_, i) => item(['answered-query', 'dog-training', `question number ${i} about puppies and leads and walks`], 5 + (i % 7)));
  const questions = Array.from({ length: 400 }, (_, i) => item(['query', `how to topic${i} with word${i % 50} and more words here now`], 5 + (i % 3)));
  const report = await buildReport({ fromDay: 20_000, toDay: 20_029, totals: { [`answered${SEP}dog-training`]: 2_500 }, items: [...many, ...questions] }, context);
  t.equal(report.answered[0]!.queries.length, SHOWN.answered);
  t.equal(report.answered[0]!.queries[0]!.clients, 11, 'the most asked first');
  t.equal(report.uncovered.length, SHOWN.groups);
});
