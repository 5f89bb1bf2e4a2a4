import t from 'tap';
import { normalizeText, unfold } from '../../../src/matcher/normalize.js';
import { countriesIn } from '../../../src/matcher/places.js';

const read = (text: string, mode: 'asked' | 'scope' | 'named') => countriesIn(normalizeText(text), unfold(text), mode).sort();

t.test('a place is read as its country: countries by their names and aliases, first-level subdivisions', async (t) => {
  t.same(read('small claims limit in Ontario', 'asked'), ['CA']);
  t.same(read('at-will employment in California', 'asked'), ['US']);
  t.same(read('council tax in Scotland', 'asked'), ['GB']);
  t.same(read('UK visa rules', 'asked'), ['GB']);
  t.same(read('renting in the United Kingdom of Great Britain and Northern Ireland', 'asked'), ['GB']);
  t.same(read('a rent stabilized apartment in New York', 'asked'), ['US'], 'the longest name wins: New York, not York');
  t.same(read('moving to Georgia', 'asked'), ['GE', 'US'], 'a name two places share is read as both');
});

t.test('"US" counts in capitals only; everyday words and short names are no places', async (t) => {
  t.same(read('US DOT rules on refunds', 'asked'), ['US']);
  t.same(read('tell us how refunds work', 'asked'), []);
  t.same(read('how long to brine a turkey', 'asked'), [], 'an everyday word');
  t.same(read('wash a wool jersey', 'asked'), []);
});

t.test('a question: a place after "from" is where the asker comes from, not what is asked', async (t) => {
  t.same(read('a skilled worker visa for someone from India', 'asked'), []);
  t.same(read('moving from Canada to Texas', 'asked'), ['US']);
});

t.test("a category's description binds it only to places after \"in\", and those joined to them", async (t) => {
  t.same(read('Private renting in England and Wales from the tenant side', 'scope'), ['GB']);
  t.same(read('Paying college tuition in the US', 'scope'), ['US']);
  t.same(read('auto loans, leasing, trade-ins and UK PCP finance', 'scope'), [], 'a mention in passing binds nothing');
  t.same(read('US Income Tax', 'named'), ['US'], 'a name binds by any mention');
});
