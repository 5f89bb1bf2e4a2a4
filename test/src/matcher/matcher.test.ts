import t from 'tap';
import { DEFAULT_THRESHOLD, MAX_REMEMBERED_RANKINGS, MAX_REMEMBERED_WORDS, MIN_MARGIN, RULES, buildMatcher } from '../../../src/matcher/matcher.js';
import { contentWords, normalizeText, stem } from '../../../src/matcher/normalize.js';
import { prepareQuery } from '../../../src/matcher/query.js';

const contentTokens = (text: string) => contentWords(text).map(stem);
import { loadRegistry } from '../../../src/registry/load.js';
import { validateRegistry } from '../../../src/registry/validate.js';
import type { Registry } from '../../../src/registry/types.js';
import { SHIPPED_REGISTRY } from '../../helpers/build.js';

const registry = await loadRegistry(SHIPPED_REGISTRY);
const matcher = buildMatcher(registry);

/** A matcher over a registry built in a test, validated first as a served one is. */
function matcherOf (data: unknown, threshold?: number) {
  const check = validateRegistry(JSON.parse(JSON.stringify(data)));
  if (!check.ok) throw new Error(check.problems.join());
  return buildMatcher(check.registry, threshold);
}

t.test('normalisation folds case, accents, punctuation, whitespace and stop words', async (t) => {
  t.equal(normalizeText('  Héllo,   WORLD!!  '), 'hello world');
  t.equal(normalizeText("Don't—panic"), 'dont panic');
  t.same(contentTokens('How do I run a Bitcoin full-node?'), ['run', 'bitcoin', 'full', 'node']);
  t.same(contentTokens('the of and to'), []);
  t.same(contentTokens('Good exercises for practicing Rust, still realistic?'), ['rust'], 'how a learner asks is not what about');
  t.equal(normalizeText('Z-Wave and e-mail'), 'zwave and email', 'a letter hyphened to a word is one word with it');
  t.equal(normalizeText('Form I-9, W-2 and a vitamin c'), 'form i9 w2 and a vitamin c', 'and so is a letter hyphened to a number');
  t.equal(normalizeText('mail-in-a-box'), 'mail in a box', 'but not a letter inside a hyphened phrase');
  t.equal(stem('nodes'), 'node');
  t.equal(stem('hosting'), stem('hosted'));
  t.equal(stem('installing'), stem('install'));
  t.equal(stem('passwords'), 'password');
  for (const [plural, one] of [['keys', 'key'], ['tools', 'tool'], ['apis', 'api'], ['apps', 'app'], ['nips', 'nip'], ['hiking', 'hike']]) t.equal(stem(plural), stem(one), `${plural} meets ${one}`);
  t.equal(stem('keys'), stem('key'), 'keys: a four-letter plural');
  t.equal(stem('sac305'), 'sac305', 'a word with digits is kept as written');
});

t.test('the issue examples', async (t) => {
  const rust = matcher.match('learn rust programming');
  t.equal(rust.kind === 'match' && rust.slug, 'rust-learning');
  const node = matcher.match('how do I run a bitcoin full node');
  t.equal(node.kind === 'match' && node.slug, 'bitcoin-node-setup');
  const physics = matcher.match('quantum physics supercollider');
  t.equal(physics.kind, 'no-match');
  t.equal(physics.kind === 'no-match' && physics.reason, 'below-threshold');
});

t.test('a match reports its score and the runner-up', async (t) => {
  const m = matcher.match('self-hosted email server with dkim');
  if (m.kind !== 'match') return t.fail('expected a match');
  t.equal(m.slug, 'self-hosted-email');
  t.ok(m.score > 0.4 && m.score <= 1, `score ${m.score}`);
  t.equal(m.category.name, 'Self-Hosted Email');
  t.ok(m.runnerUp === null || m.runnerUp.score <= m.score, 'runner-up scores no higher');
});

t.test('a few ways people ask, typos included', async (t) => {
  const cases: [string, string][] = [
    ['selinux policy', 'linux-hardening'],
    ['1password alternative', 'password-management'],
    ['threat modelling', 'threat-modeling'],
    ['home asistant zigbee', 'home-automation-private'],
    ['MCP', 'mcp-development'],
    ['nostr', 'nostr-development'],
    ['pkarr', 'pubky-development'],
  ];
  for (const [query, slug] of cases) {
    const m = matcher.match(query);
    t.equal(m.kind === 'match' ? m.slug : 'no-match', slug, query);
  }
});

t.test('near-misses that share a word with a category do not match', async (t) => {
  for (const query of ['rust belt history', 'bitcoin atm near me', 'newsletter software']) {
    t.equal(matcher.match(query).kind, 'no-match', query);
  }
});

t.test('an empty or stop-words-only query is a no-match of its own kind', async (t) => {
  for (const query of ['', '   ', 'the and of', '?!...', 'how do I']) {
    const m = matcher.match(query);
    t.equal(m.kind === 'no-match' && m.reason, 'empty-query', JSON.stringify(query));
  }
});

t.test('the threshold is respected, per matcher and per call', async (t) => {
  const query = 'rust colored paint';
  t.equal(matcher.match(query).kind, 'no-match', 'a weak match stays out at the default threshold');
  const loose = matcher.match(query, 0.05);
  t.equal(loose.kind === 'match' && loose.slug, 'rust-learning', 'a low threshold lets a weak match in');
  const strict = matcher.match('learn rust programming', 1.01);
  t.equal(strict.kind, 'no-match', 'nothing passes a threshold above 1');
  if (strict.kind === 'no-match') t.equal(strict.closest?.slug, 'rust-learning', 'the closest is still named');
  const partial = matcher.match('rust lifetimes for my job interview');
  if (partial.kind !== 'match') return t.fail('expected a partial match');
  t.ok(partial.score < 1, `partial score ${partial.score}`);
  const strictMatcher = buildMatcher(registry, partial.score + 0.001);
  t.equal(strictMatcher.match('rust lifetimes for my job interview').kind, 'no-match', 'the matcher default applies');
  t.equal(strictMatcher.match('rust lifetimes for my job interview', partial.score).kind, 'match', 'a per-call threshold wins');
});

t.test('an exact tie is too close to call: no match, naming both in slug order, on every call', async (t) => {
  const base = registry.categories['rust-learning']!;
  const twin = (slug: string) => [slug, { ...base, name: 'Twin', tags: ['twin'], keywords: ['zebra crossing'], queryPatterns: ['zebra crossing'], description: 'zebra crossing' }];
  const data = { ...structuredClone(registry), categories: Object.fromEntries([twin('b-twin'), twin('a-twin')]) };
  const m = matcherOf(data);
  for (let i = 0; i < 5; i++) {
    t.match(m.match('zebra crossing'), { kind: 'no-match', reason: 'too-close', closest: { slug: 'a-twin', score: 1 }, contender: { slug: 'b-twin', score: 1 } });
  }
});

t.test('one everyday word alone is too vague to answer; a name alone, or the same word in a request, is not', async (t) => {
  for (const query of ['security', 'Rust', 'passwords?', '  keys  ']) {
    t.match(matcher.match(query), { kind: 'no-match', reason: 'too-vague' }, query);
  }
  t.match(matcher.match('bitcoind'), { kind: 'match', slug: 'bitcoin-node-setup' }, 'a name alone');
  t.match(matcher.match('zigbee'), { kind: 'match', slug: 'home-automation-private' }, 'a name alone');
  t.match(matcher.match('learn rust'), { kind: 'match', slug: 'rust-learning' }, 'one content word, but a request');
  t.match(matcher.match('password manager'), { kind: 'match', slug: 'password-management' });
  t.match(matcher.match('nips'), { kind: 'no-match', reason: 'too-vague' }, 'an everyday word that is also a keyword is still one everyday word');
  t.match(matcher.match('email email email email email email email email'), { kind: 'no-match', reason: 'too-vague' }, 'one everyday word typed over and over is still one word');
  t.match(matcher.match('zigbee zigbee zigbee'), { kind: 'match', slug: 'home-automation-private' }, 'a name repeated is still a name');
  t.not((matcher.match('key keys') as { reason?: string }).reason, 'too-vague', 'two forms of a word are two words as typed');
});

t.test('typos: a swap of two letters is read in a four-letter word without using the lookup budget; never into a keyword, never by letters added to a registry word', async (t) => {
  const explained = (query: string) => matcher.explain(query).forCategory.map((w) => `${w.word}${w.corrected === undefined ? '' : `>${w.corrected}`}`);
  t.ok(explained('rsut lifetimes').includes('rsut>rust'), '"rsut" is read as "rust"');
  t.notOk(matcher.explain('mount /tmp with nodev').forCategory.some((w) => w.word === 'nodev' && w.corrected !== undefined), '"nodev" is not read as "node"');
  t.notOk(matcher.explain('postgres index tuning').forCategory.some((w) => w.corrected !== undefined), '"postgres" is not read as the keyword "postgrey"');
  // Three unknown four-letter words first must not use up the budget that "nodee" needs.
  const late = matcher.match('ipfs xmpp zfsx run a bitcoin full nodee');
  const early = matcher.match('run a bitcoin full nodee ipfs xmpp zfsx');
  t.same(late, early, 'the order of the words does not change the answer');
  t.ok(matcher.explain('ipfs xmpp zfsx run a bitcoin full nodee').forCategory.some((w) => w.word === 'nodee'), '"nodee" is still read');
});

t.test('one everyday word is too vague even misspelt, and what is remembered for a key never carries the one-word verdict to a longer query', async (t) => {
  for (const query of ['kyes', 'rsut']) t.match(matcher.match(query), { kind: 'no-match', reason: 'too-vague' }, query);
  const fresh = buildMatcher(registry);
  const longerFirst = fresh.match('the security');
  t.match(fresh.match('security'), { kind: 'no-match', reason: 'too-vague' });
  t.same(fresh.match('the security'), longerFirst, 'asked after the one-word query, the same answer');
  t.not(longerFirst.kind === 'no-match' && longerFirst.reason, 'too-vague', 'two words are no one-word query');
});

t.test('an exact tie is never won by naming: a word both categories describe themselves with, or equal scores, names neither', async (t) => {
  const base = registry.categories['rust-learning']!;
  const data = {
    ...structuredClone(registry),
    categories: {
      gardening: { ...base, name: 'Gardening', tags: ['garden'], keywords: [], queryPatterns: ['soil compost'], description: 'soil compost' },
      farming: { ...base, name: 'Farming', tags: ['farm'], keywords: [], queryPatterns: ['gardening soil compost'], description: 'soil compost' },
    },
  };
  const m = matcherOf(data, 0.1);
  const tie = m.match('gardening soil compost');
  t.match(tie, { kind: 'no-match', reason: 'too-close' }, 'named by one, but the scores are equal');
  if (tie.kind === 'no-match' && tie.reason === 'too-close') t.equal(tie.closest.score, tie.contender.score);
});

t.test('a tie at 1 goes to the category the query names by its name and a keyword, over one that uses the words only in its example questions, whatever the slugs', async (t) => {
  const base = registry.categories['rust-learning']!;
  for (const [mailSlug, otherSlug] of [['a-mail', 'b-social'], ['b-mail', 'a-social']] as const) {
    const data = {
      ...structuredClone(registry),
      categories: {
        [mailSlug]: { ...base, name: 'Own Email', tags: ['mail'], keywords: ['email server'], queryPatterns: ['host mail for a family'], description: 'run your own email server' },
        [otherSlug]: { ...base, name: 'Social Protocol', tags: ['relays'], keywords: ['relay'], queryPatterns: ['a name that looks like an email address'], description: 'signed notes over relays: run a small server' },
      },
    };
    const m = matcherOf(data, 0.1);
    const answer = m.match('run my own email server');
    t.match(answer, { kind: 'match', slug: mailSlug, score: 1, runnerUp: { slug: otherSlug, score: 1 } }, `${mailSlug} over ${otherSlug}`);
    t.match(m.match('run a server'), { kind: 'no-match', reason: 'too-close' }, 'no name and no keyword: still a tie');
  }
});

t.test('in a tie where neither is named, the category the query holds a keyword of comes first, whatever the slugs', async (t) => {
  const base = registry.categories['rust-learning']!;
  for (const [keyed, plain] of [['a-keyed', 'b-plain'], ['b-keyed', 'a-plain']] as const) {
    const data = {
      ...structuredClone(registry),
      categories: {
        [keyed]: { ...base, name: 'Orchards', tags: ['orchard'], keywords: ['soil compost'], notAbout: [], queryPatterns: ['soil compost'], description: 'soil compost' },
        [plain]: { ...base, name: 'Meadows', tags: ['meadow'], keywords: [], notAbout: [], queryPatterns: ['soil compost'], description: 'soil compost' },
      },
    };
    const answer = matcherOf(data, 0.1).match('soil compost');
    t.match(answer, { kind: 'no-match', reason: 'too-close', closest: { slug: keyed } }, `${keyed} before ${plain}`);
  }
});

t.test('a win by less than MIN_MARGIN is no match, unless the query names the leader and not the runner-up', async (t) => {
  const base = registry.categories['rust-learning']!;
  const category = (name: string, words: string) => ({ ...base, name, tags: [name.toLowerCase()], keywords: [], queryPatterns: [words], description: words });
  const data = {
    ...structuredClone(registry),
    categories: { gardening: category('Gardening', 'soil compost seedlings'), farming: category('Farming', 'soil compost tractors') },
  };
  const m = matcherOf(data, 0.1);
  const close = m.match('soil compost');
  t.match(close, { kind: 'no-match', reason: 'too-close' }, 'two categories sharing the same words: neither');
  if (close.kind === 'no-match' && close.reason === 'too-close') t.ok(close.closest.score - close.contender.score < MIN_MARGIN);
  t.match(m.match('gardening soil compost'), { kind: 'match', slug: 'gardening' }, 'the query names one of them: that one');
  t.match(m.match('soil compost seedlings'), { kind: 'match', slug: 'gardening' }, 'a clear lead: that one');
});

t.test(`a topic that ${RULES.broadEvidenceWords} or more of the query's words point to needs ${RULES.broadEvidenceDiscount} less than the threshold; fewer words need all of it`, async (t) => {
  const base = registry.categories['rust-learning']!;
  const data = {
    ...structuredClone(registry),
    categories: {
      gardening: { ...base, name: 'Gardening', tags: ['garden'], keywords: [], notAbout: [], queryPatterns: ['soil compost seedlings mulch'], description: 'soil compost seedlings mulch' },
      farming: { ...base, name: 'Farming', tags: ['farm'], keywords: [], notAbout: [], queryPatterns: ['tractors harvest'], description: 'tractors harvest' },
    },
  };
  const m = matcherOf(data);
  const score = (query: string): number => {
    const answer = m.match(query, 0);
    if (answer.kind !== 'match') throw new Error(`no score for ${query}`);
    return answer.score;
  };
  const four = 'soil compost seedlings mulch for a yard that looks awful';
  const three = 'soil compost seedlings for a yard that looks awful';
  const at = (query: string, threshold: number) => m.match(query, Math.round(threshold * 1000) / 1000);
  t.match(at(four, score(four) + RULES.broadEvidenceDiscount / 2), { kind: 'match', slug: 'gardening' }, 'four words: under the threshold, within the discount');
  t.match(at(four, score(four) + RULES.broadEvidenceDiscount * 1.5), { kind: 'no-match', reason: 'below-threshold' }, 'four words: past the discount');
  const short = at(three, score(three) + RULES.broadEvidenceDiscount / 2);
  t.match(short, { kind: 'no-match', reason: 'below-threshold' }, 'three words: the whole threshold');
  t.equal(short.kind === 'no-match' && short.threshold, Math.round((score(three) + RULES.broadEvidenceDiscount / 2) * 1000) / 1000, 'and it says which threshold applied');
});

t.test('an everyday word a letter from a word of the topic the query names is read as that word; alone, or with no topic named, it is itself', async (t) => {
  const corrected = (query: string) => matcher.explain(query).forCategory.filter((w) => w.corrected !== undefined).map((w) => `${w.word}>${w.corrected}`);
  t.match(matcher.match('mcp sever tutorial'), { kind: 'match', slug: 'mcp-development' });
  t.same(corrected('mcp sever tutorial'), [`sever>${stem('server')}`], '"mcp" names the topic: "sever" is a slip');
  t.match(matcher.match('best pasword manger for my famly'), { kind: 'match', slug: 'password-management' });
  t.ok(corrected('best pasword manger for my famly').includes('manger>manag'), '"manger" read as "manager" once "pasword" names the topic');
  t.same(matcher.explain('how to sever a cable').unknown, ['sever', 'cable'], 'no topic named: "sever" stays itself');
  t.notOk(corrected('threat model for attached usb drives').some((w) => w.startsWith('attached')), 'two letters away is another word: "attached" is not "attacker"');
});

t.test('a misspelt filler word is filler: it counts neither for nor against a topic', async (t) => {
  const e = matcher.explain('best rust tutoriall for lifetiems');
  t.match(e.outcome, { kind: 'match', slug: 'rust-learning' });
  t.notOk(e.unknown.includes('tutoriall'), '"tutoriall" is "tutorial", a stop word');
  t.same(matcher.explain('rust lifetimes explaned').unknown, [], '"explaned" is "explained"');
  t.ok(matcher.explain('rust tutoral').unknown.length === 0 && matcher.explain('rust ferrous').unknown.includes('ferrous'), 'only words one letter from a filler word of six letters or more');
});

t.test('an everyday word the query and the category both write in capitals is a name: "STRIDE", not a stride', async (t) => {
  for (const query of ['What is STRIDE and how do I use it?', 'STRIDE']) t.match(matcher.match(query), { kind: 'match', slug: 'threat-modeling' }, query);
  t.match(matcher.match('what is stride'), { kind: 'no-match' }, 'in lower case it is the everyday word');
  t.match(matcher.match('stride'), { kind: 'no-match', reason: 'too-vague' });
  const fresh = buildMatcher(registry);
  t.match(fresh.match('what is stride'), { kind: 'no-match' }, 'asked first in lower case');
  t.match(fresh.match('What is STRIDE'), { kind: 'match', slug: 'threat-modeling' }, 'then in capitals: not the remembered lower-case answer');
  t.same(matcher.explain('What is STRIDE').forCategory.map((w) => [w.word, w.keyword]), [['stride', true]]);
});

t.test('an empty registry yields no-match, never a crash', async (t) => {
  const empty: Registry = { ...registry, categories: {} };
  const m = buildMatcher(empty);
  t.same(m.match('learn rust'), { kind: 'no-match', reason: 'below-threshold', closest: null, threshold: DEFAULT_THRESHOLD, candidates: [] });
  t.equal(m.match('').kind, 'no-match');
});

t.test('a query is normalised before it is measured: what unfolds past 1,000 characters is refused, format characters join words', async (t) => {
  t.equal(matcher.match('bitcoin '.repeat(125)).kind, 'match', '1,000 characters');
  t.match(matcher.match('x'.repeat(2000)), { kind: 'no-match', reason: 'too-long' });
  // 1,000 characters as sent, 4,000 letters once "ⅷ" unfolds into "viii".
  t.match(matcher.match('ⅷ'.repeat(1000)), { kind: 'no-match', reason: 'too-long' });
  t.match(matcher.match('ⅷ'.repeat(250)), { kind: 'no-match', reason: 'below-threshold' }, 'within the limit once unfolded');
  t.match(matcher.match('run a bit\u200bcoin full no\u00addeeee'.replace('eeee', '')), { kind: 'match', slug: 'bitcoin-node-setup' }, 'a zero-width space or soft hyphen does not split a word');
  t.equal(normalizeText('bit\u200bcoin \ufb01le \u2177'), 'bitcoin file viii');
});

t.test('a long query is read by its first 16 and its last 16 content words: the background in between is not read', async (t) => {
  const filler = Array.from({ length: 32 }, (_, i) => `zq${String.fromCharCode(97 + (i % 26))}${i}`).join(' ');
  const half = filler.split(' ').slice(0, 16).join(' ');
  t.match(matcher.match(`run a bitcoin full node ${filler}`), { kind: 'match', slug: 'bitcoin-node-setup' }, 'asked first');
  t.match(matcher.match(`${filler} run a bitcoin full node`), { kind: 'match', slug: 'bitcoin-node-setup' }, 'asked last, after the background');
  t.match(matcher.match(`${half} run a bitcoin full node ${filler}`), { kind: 'no-match' }, 'words between the 16th and the last 16 are not read');
});

t.test('prepareQuery reads at most 32 content words: all of them, or the first 16 and the last 16 in order', async (t) => {
  const numbered = (n: number) => Array.from({ length: n }, (_, i) => `w${i + 1}x`);
  t.same(prepareQuery(numbered(32).join(' ')).words, numbered(32), '32: all');
  t.same(prepareQuery(numbered(33).join(' ')).words, [...numbered(16), ...numbered(33).slice(17)], '33: the 17th is left out');
  t.same(prepareQuery(numbered(100).join(' ')).words, [...numbered(16), ...numbered(100).slice(84)], '100: the first 16 and the last 16, in order');
});

t.test('a query in other case and punctuation is ranked alike, and remembered rankings cannot be damaged', async (t) => {
  const fresh = buildMatcher(registry);
  const first = fresh.match('learn rust programming');
  t.same(fresh.match('LEARN Rust, programming?!'), first);
  if (first.kind !== 'match' || first.runnerUp === null) throw new Error('expected a match with a runner-up');
  t.throws(() => {
    (first.runnerUp as { score: number }).score = 1;
  }, TypeError, 'a caller cannot change what the next caller is told');
  // Past the bound the remembered rankings are emptied, and answers stay the same.
  for (let i = 0; i < MAX_REMEMBERED_RANKINGS + 100; i++) fresh.match(`rust ownership lesson ${i}`);
  t.ok(fresh.remembered().rankings <= MAX_REMEMBERED_RANKINGS, `at most ${MAX_REMEMBERED_RANKINGS} rankings remembered (${fresh.remembered().rankings})`);
  t.same(fresh.match('learn rust programming'), first);
  t.same(fresh.match('quantum physics supercollider'), matcher.match('quantum physics supercollider'));
});

t.test('misspelt words are remembered up to a bound, whatever a client sends', async (t) => {
  const fresh = buildMatcher(registry);
  // Distinct unknown words of typo length: each is looked up once and remembered.
  for (let i = 0; i < MAX_REMEMBERED_WORDS + 100; i++) fresh.match(`zq${i.toString(36).padStart(4, 'x')}`);
  const { corrections } = fresh.remembered();
  t.ok(corrections > 0, 'corrections are remembered');
  t.ok(corrections <= MAX_REMEMBERED_WORDS, `at most ${MAX_REMEMBERED_WORDS} corrections remembered (${corrections})`);
});

t.test("a curator's not-about entry keeps its category out of a query that names it: two words in a row, three or more in any order close together", async (t) => {
  const scoped = buildMatcher({
    ...registry,
    categories: {
      ...registry.categories,
      'rust-learning': { ...registry.categories['rust-learning']!, notAbout: ['rust game', 'corrosion', 'rust game wipe schedule'] },
      'threat-modeling': { ...registry.categories['threat-modeling']!, notAbout: ['school threat assessment'] },
    },
  });
  t.match(scoped.match('learn rust programming'), { kind: 'match', slug: 'rust-learning' });
  t.notMatch(scoped.match('rust game server for beginners'), { slug: 'rust-learning' }, 'the phrase in a row');
  t.notMatch(scoped.match('learn rust corrosion programming'), { slug: 'rust-learning' });
  t.match(scoped.match('learn rust programming to write a game'), { kind: 'match', slug: 'rust-learning' }, 'its words apart are no exclusion');
  t.match(scoped.match('write a small game in rust'), { kind: 'match', slug: 'rust-learning' }, 'two words in another order are no exclusion');
  t.same([...scoped.explain('rust game server').outOfScope], [['rust-learning', ['rust game']]]);
  t.notMatch(scoped.match('threat assessment for a school event'), { slug: 'threat-modeling' }, 'three words in another order, close together');
  t.same([...scoped.explain('threat assessment procedures for school safety').outOfScope], [['threat-modeling', ['school threat assessment']]], 'one word between');
  t.match(
    scoped.match('threat model for the assessment of our app before it ships to every school in the district'),
    { kind: 'match', slug: 'threat-modeling' },
    'the same words far apart in a long request are no exclusion'
  );
});

t.test('a query of one content word makes a topic only of a category it names by its name or a keyword', async (t) => {
  // "go" is in Threat Modeling's description ("what can go wrong"): alone, it names nothing.
  t.match(matcher.match('best way to learn Go as a beginner'), { kind: 'no-match' });
  t.match(matcher.match('go go'), { kind: 'no-match' }, 'the same word twice is one word');
  t.match(matcher.match('how to learn rust as a beginner'), { kind: 'match', slug: 'rust-learning' }, 'a word of its name');
  t.match(matcher.match('a good tutorial on zigbee please'), { kind: 'match', slug: 'home-automation-private' }, 'a keyword');
});

t.test('an everyday English word is never corrected into a registry word', async (t) => {
  const { forCategory, unknown } = matcher.explain('how to remove rust from tools');
  t.notOk(forCategory.some((w) => w.corrected !== undefined), 'nothing is read as another word');
  t.ok(unknown.includes('remove'), '"remove" stays itself, not "remote"');
  t.match(matcher.explain('run a bitcoin full nodee').forCategory, [{}, {}, {}, { word: 'nodee' }], 'a misspelling that is no word is still read');
});

t.test('kept category readings answer as a fresh build: after an edit, under another slug, and with other rules (issue 32, triage)', async (t) => {
  const readings = new WeakMap();
  const questions = ['learn rust programming', 'rust lifetimes explained', 'harden ssh on my ubuntu server', 'run a bitcoin full node', 'bread baking', 'ferris crab'];
  const answers = (m: ReturnType<typeof buildMatcher>) => questions.map((q) => {
    const o = m.match(q);
    return o.kind === 'match' ? `${o.slug} ${o.score}` : `${o.reason} ${o.candidates.map((c) => c.slug).join(',')}`;
  });
  t.same(answers(buildMatcher(registry, undefined, { readings })), answers(buildMatcher(registry)), 'the first build keeps them');
  const rust = registry.categories['rust-learning']!;
  const edited: Registry = { ...registry, categories: { ...registry.categories, 'rust-learning': { ...rust, keywords: [...rust.keywords, 'bread baking'] } } };
  t.same(answers(buildMatcher(edited, undefined, { readings })), answers(buildMatcher(edited)), 'an edited category is read again');
  t.not(answers(buildMatcher(edited))[4], answers(buildMatcher(registry))[4], 'and the edit shows');
  const { 'rust-learning': moved, ...others } = registry.categories;
  const renamed: Registry = { ...registry, categories: { ...others, 'ferris-crab': moved! } };
  t.same(answers(buildMatcher(renamed, undefined, { readings })), answers(buildMatcher(renamed)), 'the same category under another slug is read again');
  const rules = { ...RULES, sourceWeight: 0 };
  t.same(answers(buildMatcher(registry, undefined, { readings, rules })), answers(buildMatcher(registry, undefined, { rules })), 'and with other rules');
});
