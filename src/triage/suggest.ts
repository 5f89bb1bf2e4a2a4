import { QUESTION_CUT, uncut } from '../demand/asked.js';
import type { DemandReport } from '../demand/report.js';
import { buildMatcher, prepareQuery, RULES, type Matcher, type PreparedQuery, type ReadingCache } from '../matcher/matcher.js';
import { EditableIndex } from '../matcher/edited-index.js';
import { normalizeText } from '../matcher/normalize.js';
import type { Category, Registry } from '../registry/types.js';
import type { WordVectors } from '../semantic/word-vectors.js';

/**
 * A change to one category drawn from what agents asked: an example question in the askers'
 * words (from a declined question it came closest to), or a not-about entry: a word of a question
 * the category answered that it never uses, for the curator to judge (a wrong answer shares the
 * topic's words, not its purpose: "my dog has worms" answered by a goat category). The curator
 * may also turn an example question into a not-about entry.
 */
export interface Suggestion {
  readonly kind: 'example-question' | 'not-about';
  readonly slug: string;
  readonly text: string;
  /** The question it was drawn from, when that is not its text (a not-about word's question). */
  readonly from?: string;
  /** How many distinct clients asked what it comes from, and how often. */
  readonly clients: number;
  readonly asks: number;
}

export interface Move {
  readonly question: string;
  readonly of: string;
  readonly from: string;
  readonly to: string;
}

/** What a suggestion would do, judged with the real matcher on the registry with and without it. */
export interface Consequence {
  /** Of the declined questions the report shows for this category, those it would answer that the registry does not yet. */
  readonly answers: readonly string[];
  /** Of the questions the report shows this category answered, those it would no longer answer. */
  readonly turnsAway: readonly string[];
  /** Example questions of the registry (of category `of`) whose answer would change, `from` one slug `to` another ('' for a decline). */
  readonly moves: readonly Move[];
}

/** A report that names categories this registry does not have was made for another registry. */
export function unknownSlugs (registry: Registry, report: DemandReport): string[] {
  const named = [...report.nearMisses.map((n) => n.slug), ...report.scopeRefusals.map((s) => s.slug), ...Object.keys(report.totals.answeredByCategory)];
  return [...new Set(named)].filter((slug) => !Object.hasOwn(registry.categories, slug));
}

/**
 * Every suggestion the report supports, most asked first: a declined question the category came
 * closest to, as an example question of it, when it could belong there (see couldBelong).
 */
export function suggestionsFrom (registry: Registry, report: DemandReport, matcher: Matcher, meaning: boolean): Suggestion[] {
  const found: Suggestion[] = [];
  for (const near of report.nearMisses) {
    const category = registry.categories[near.slug];
    if (category === undefined) continue;
    const held = new Set(category.queryPatterns.map(normalizeText));
    for (const q of near.queries) {
      // A question cut to its head and tail is no way anyone asks.
      if (q.text.includes(QUESTION_CUT) || held.has(normalizeText(q.text)) || !couldBelong(matcher, q.text, near.slug, meaning)) continue;
      found.push({ kind: 'example-question', slug: near.slug, text: q.text, clients: q.clients, asks: q.asks });
    }
  }
  const order = (a: Suggestion, b: Suggestion) => b.clients - a.clients || b.asks - a.asks || a.slug.localeCompare(b.slug) || a.text.localeCompare(b.text);
  return [...found.sort(order), ...notAboutReviews(registry, report, matcher).sort(order)];
}

/**
 * For each question a category answered where at least half the words are ones the category never
 * uses, the first of those as a not-about entry for the curator to judge (or edit): a question
 * mostly in the topic's own words is its topic, and one mostly foreign to it may be another topic
 * sharing a word ("buy" of "where can i buy a weighted tournament chess set").
 * Only the curator can tell: of blind-ak and blind-al's 236 answered questions (13 wrong), right
 * answers to short or jargon questions were as far from their category in meaning (down to 0.29)
 * as the least similar wrong ones (0.63, 0.64) or further, so no floor tells them apart, and
 * `--accept-all` never takes these.
 */
function notAboutReviews (registry: Registry, report: DemandReport, matcher: Matcher): Suggestion[] {
  const found: Suggestion[] = [];
  for (const answered of report.answered) {
    const category = registry.categories[answered.slug];
    if (category === undefined) continue;
    const held = new Set((category.notAbout ?? []).map(normalizeText));
    for (const q of answered.queries) {
      // A long request's first words are its background, not what it asks.
      if (q.text.includes(QUESTION_CUT)) continue;
      const prepared = prepareQuery(q.text);
      const foreign = matcher.unknownWords(prepared, answered.slug);
      const [word] = foreign;
      if (word === undefined || 2 * foreign.length < new Set(prepared.words).size || held.has(word)) continue;
      found.push({ kind: 'not-about', slug: answered.slug, text: word, from: q.text, clients: q.clients, asks: q.asks });
    }
  }
  return found;
}

/**
 * Whether a declined question may be one the category should answer. Not when it asks for
 * something other than the topic (a price, a job, news: the matcher's intent words; that is a
 * not-about entry's work, and it is declined already), nor when the category is not near it in
 * meaning (a word shared by chance: "list" of a Python question near a packing list). Without the
 * semantic stage, its words must come half way to an answer.
 */
function couldBelong (matcher: Matcher, question: string, slug: string, meaning: boolean): boolean {
  const prepared = prepareQuery(question);
  if (prepared.intents.length > 0 || prepared.words.length < 2) return false;
  const outcome = matcher.match(question, undefined, prepared);
  if (outcome.kind === 'match') return false;
  const candidate = outcome.candidates.find((c) => c.slug === slug);
  if (candidate === undefined) return false;
  return meaning ? (candidate.similarity ?? 0) >= RULES.meaningFloor : candidate.score >= outcome.threshold / 2;
}

/** The registry with the suggestion applied; the input is not changed. */
export function applySuggestion (registry: Registry, s: Suggestion): Registry {
  const c = registry.categories[s.slug] as Category;
  const edited: Category = s.kind === 'example-question' ? { ...c, queryPatterns: [...c.queryPatterns, s.text] } : { ...c, notAbout: [...(c.notAbout ?? []), s.text] };
  return { ...registry, categories: { ...registry.categories, [s.slug]: edited } };
}

/** An example question of the registry: its category, its text, and how the matcher reads it. */
interface Example {
  readonly of: string;
  readonly question: string;
  readonly prepared: PreparedQuery;
  /** It holds a word no category uses: a typo correction may change how any edit reads it. */
  readonly mayBeCorrected: boolean;
  /** Where it is answered on the registry as it is: a slug, or '' when declined. */
  readonly answer: string;
}

const answerOf = (matcher: Matcher, question: string, prepared?: PreparedQuery) => {
  const o = matcher.match(question, undefined, prepared);
  return o.kind === 'match' ? o.slug : '';
};

/** Judges suggestions on one registry (see judgeOn). */
export interface Judge {
  (s: Suggestion, declined: readonly string[], answered?: readonly string[]): Consequence;
  /** The judge of the registry with `s` applied (applySuggestion): built from this one's judging of `s`, not by asking every example question again. */
  after(s: Suggestion): Judge;
}

/**
 * Judges suggestions against one registry: its matcher and its example questions' answers are
 * built once. A suggestion is judged on the registry rebuilt with it, without the semantic stage:
 * meaning only names a decline's candidates, never decides an answer. Only the example questions
 * it can move are asked again: a question is scored on its own words alone (which categories use
 * each, and how rare each is), so text added to a category changes its answer only when the
 * question holds a word of that text, or a word no category uses (a typo may now be corrected into
 * the new text). Checked against asking every example question again: the same moves for 912
 * suggestions on the shipped registry and 35 fixture registries (356 moves). For the same reason,
 * once a suggestion is taken, the example questions' answers are the ones before it with its
 * moves: the next judge starts from them (at 1,000 categories, asking them all again took most of
 * a second per suggestion taken).
 */
export function judgeOn (
  registry: Registry,
  threshold: number | undefined,
  readings: ReadingCache = new WeakMap(),
  now: Matcher = buildMatcher(registry, threshold, { readings })
): Judge {
  const examples: Example[] = [];
  for (const [of, c] of Object.entries(registry.categories)) {
    for (const question of c.queryPatterns) {
      const prepared = prepareQuery(question);
      examples.push({ of, question, prepared, mayBeCorrected: now.unknownWords(prepared).length > 0, answer: answerOf(now, question, prepared) });
    }
  }
  return judgeWith(EditableIndex.of(registry, RULES, readings), threshold, readings, now, examples);
}

function judgeWith (editable: EditableIndex, threshold: number | undefined, readings: ReadingCache, now: Matcher, examples: readonly Example[]): Judge {
  const registry = editable.index.registry;
  const answersWith = (matcher: Matcher, q: string, slug: string) => answerOf(matcher, q) === slug;
  // The last suggestion judged, with its registry's matcher and its moves by example: what after() carries over.
  let last: { s: Suggestion; matcher: Matcher; moved: Map<number, string>; edited: EditableIndex | undefined } | undefined;
  const movesOf = ({ s, matcher, edited }: { s: Suggestion; matcher: Matcher; edited: EditableIndex | undefined }) => {
    const added = new Set(prepareQuery(s.text).stems);
    const moved = new Map<number, string>();
    examples.forEach((e, i) => {
      if (!e.mayBeCorrected && !e.prepared.stems.some((stem) => added.has(stem))) return;
      const to = answerOf(matcher, e.question, e.prepared);
      if (to !== e.answer) moved.set(i, to);
    });
    return (last = { s, matcher, moved, edited });
  };
  // Only the edited category is read again, and only its words entered again in the index (an
  // edit of more than its example questions and not-about entries is indexed anew).
  const rebuilt = (s: Suggestion) => {
    const applied = applySuggestion(registry, s);
    const edited = editable.with(s.slug, applied.categories[s.slug] as Category);
    const matcher = buildMatcher(applied, threshold, edited === undefined ? { readings } : { readings, prebuilt: edited });
    return { s, matcher, edited };
  };
  const judge = (s: Suggestion, declined: readonly string[], answered: readonly string[] = []): Consequence => {
    const { matcher, moved } = movesOf(rebuilt(s));
    // What it adds: a question an earlier edit answers already is not counted again.
    const answers = declined.filter((q) => !answersWith(now, q, s.slug) && answersWith(matcher, q, s.slug));
    const turnsAway = answered.filter((q) => answersWith(now, q, s.slug) && !answersWith(matcher, q, s.slug));
    const moves = [...moved].map(([i, to]) => ({ question: examples[i]!.question, of: examples[i]!.of, from: examples[i]!.answer, to }));
    return { answers, turnsAway, moves };
  };
  const after = (s: Suggestion): Judge => {
    const { matcher, moved, edited } = last?.s === s ? last : movesOf(rebuilt(s));
    const unknownIn = (prepared: PreparedQuery) => matcher.unknownWords(prepared).length > 0;
    const next = examples.map((e, i) => ({ ...e, answer: moved.get(i) ?? e.answer, mayBeCorrected: e.mayBeCorrected && unknownIn(e.prepared) }));
    if (s.kind === 'example-question') {
      // In its place among the example questions, as judgeOn would read the edited registry.
      const at = exampleCountThrough(registry, s.slug);
      const prepared = prepareQuery(s.text);
      next.splice(at, 0, { of: s.slug, question: s.text, prepared, mayBeCorrected: unknownIn(prepared), answer: answerOf(matcher, s.text, prepared) });
    }
    return judgeWith(edited ?? EditableIndex.of(applySuggestion(registry, s), RULES, readings), threshold, readings, matcher, next);
  };
  return Object.assign(judge, { after });
}

/** How many example questions the registry holds up to and including category `slug`'s, in its order. */
function exampleCountThrough (registry: Registry, slug: string): number {
  let count = 0;
  for (const [of, c] of Object.entries(registry.categories)) {
    count += c.queryPatterns.length;
    if (of === slug) break;
  }
  return count;
}

/** Per category, the declined questions the report shows near it: what a suggestion may answer. */
export function declinedBySlug (report: DemandReport): Map<string, string[]> {
  return new Map(report.nearMisses.map((n) => [n.slug, n.queries.map((q) => uncut(q.text))]));
}

/** Per category, the questions the report shows it answered: what a not-about entry may turn away. */
export function answeredBySlug (report: DemandReport): Map<string, string[]> {
  return new Map(report.answered.map((a) => [a.slug, a.queries.map((q) => uncut(q.text))]));
}

/** A move that makes an example question go wrong: it was answered by its own category and no longer is. */
export const goesWrong = (move: Move): boolean => move.from === move.of && move.to !== move.of;

/** A suggestion and what it would do; `skipped` says why it was not taken. */
export interface Judged {
  readonly suggestion: Suggestion;
  /** Absent when it was skipped before it was judged (takeAll without judgeAll). */
  readonly consequence?: Consequence;
  readonly skipped?: 'answers-nothing' | 'breaks-examples' | 'adds-warnings' | 'needs-curator' | 'by-curator';
}

/** Whether a text shares a content word (stemmed) with any of `questions`. */
function sharesAWord (text: string, questions: readonly string[]): boolean {
  const stems = new Set(prepareQuery(text).stems);
  return questions.some((q) => prepareQuery(q).stems.some((stem) => stems.has(stem)));
}

/**
 * Every suggestion in turn, each judged on the registry as the ones taken before it left it: one
 * that answers none of the declined questions but its own, or makes an example question go wrong,
 * or that `acceptable` refuses (the caller's lint), is skipped, and so is every not-about entry
 * (whether an answer was wrong is the curator's call). What `triage --accept-all` writes. Judging
 * costs a matcher for the edited registry (about 30 ms at 1,000 categories), so without `judgeAll`
 * what is skipped whatever its judgement is not judged: a not-about entry, and an example
 * question that shares no word with another declined question near its category (its text can
 * answer no question it shares no word with).
 */
export function takeAll (
  registry: Registry,
  report: DemandReport,
  options: { threshold?: number; meaning?: WordVectors; acceptable?: (edited: Registry) => boolean; judgeAll?: boolean }
): { registry: Registry; judged: Judged[] } {
  const declined = declinedBySlug(report);
  const answered = answeredBySlug(report);
  const readings: ReadingCache = new WeakMap();
  // One matcher both offers the suggestions (meaning names candidates) and judges the first (meaning decides no answer).
  const matcher = buildMatcher(registry, options.threshold, { meaning: options.meaning, readings });
  let current = registry;
  let judge = judgeOn(current, options.threshold, readings, matcher);
  const judged: Judged[] = [];
  for (const suggestion of suggestionsFrom(registry, report, matcher, options.meaning !== undefined)) {
    const near = declined.get(suggestion.slug) ?? [];
    const judgeIt = () => judge(suggestion, near, answered.get(suggestion.slug) ?? []);
    const withoutJudging = (skipped: 'needs-curator' | 'answers-nothing') => judged.push({ suggestion, ...(options.judgeAll === true ? { consequence: judgeIt() } : {}), skipped });
    if (suggestion.kind === 'not-about') {
      withoutJudging('needs-curator');
      continue;
    }
    // One that answers only itself is one asker's wording, not yet a way people ask.
    const isOwn = (q: string) => normalizeText(q) === normalizeText(suggestion.text);
    if (!sharesAWord(suggestion.text, near.filter((q) => !isOwn(q)))) {
      withoutJudging('answers-nothing');
      continue;
    }
    const consequence = judgeIt();
    const edited = applySuggestion(current, suggestion);
    const skipped = !consequence.answers.some((q) => !isOwn(q))
      ? 'answers-nothing'
      : consequence.moves.some(goesWrong)
        ? 'breaks-examples'
        : options.acceptable?.(edited) === false ? 'adds-warnings' : undefined;
    judged.push({ suggestion, consequence, ...(skipped === undefined ? {} : { skipped }) });
    if (skipped !== undefined) continue;
    current = edited;
    judge = judge.after(suggestion);
  }
  return { registry: current, judged };
}
