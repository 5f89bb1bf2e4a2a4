import t from 'tap';
import { generateKey } from '../../../src/provenance/keys.js';
import { prepareCatalog } from '../../../src/catalog.js';
import { getFederatedSources } from '../../../src/mcp/tools/get-federated-sources.js';
import { MAX_REMEMBERED_ANSWERS, answersFor, getSources } from '../../../src/mcp/tools/get-sources.js';
import { SHIPPED_REGISTRY, serverSigning } from '../../helpers/build.js';

t.test('remembered get_sources answers stay bounded per catalog, and answers do not change past the bound', async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), 0.4);
  const first = getSources.run({ query: 'learn rust programming' }, catalog);
  for (let i = 0; i < MAX_REMEMBERED_ANSWERS + 100; i++) getSources.run({ query: `bitcoin node question ${i}` }, catalog);
  const remembered = answersFor(catalog).size;
  t.ok(remembered > 0, 'answers are remembered');
  t.ok(remembered <= MAX_REMEMBERED_ANSWERS, `at most ${MAX_REMEMBERED_ANSWERS} answers remembered (${remembered})`);
  t.same(getSources.run({ query: 'learn rust programming' }, catalog), first, 'the same answer after the memo was emptied');

  const reloaded = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), 0.4);
  t.equal(answersFor(reloaded).size, 0, 'a new catalog (a reload) starts with nothing remembered');
});

t.test('a query longer than 1,000 characters once normalised gets an error saying so, from both tools', async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), 0.4);
  const query = 'ⅷ'.repeat(1000);
  for (const tool of [getSources, getFederatedSources]) {
    const result = tool.run({ query }, catalog);
    t.equal(result.isError, true, tool.definition.name);
    t.match(result.content[0]!.text, /^The query is longer than 1000 characters once normalised \(some characters unfold into several letters, such as "ⅷ" into "viii"\)\./);
  }
});

t.test('one everyday word gets the too-vague answer from both tools; a win too close to call names both candidates in both', async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), 0.45);
  for (const tool of [getSources, getFederatedSources]) {
    const vague = tool.run({ query: 'security' }, catalog);
    t.equal(vague.isError, true, tool.definition.name);
    t.match(vague.content[0]!.text, /^"security" is a single common word, too vague to answer/, `${tool.definition.name}: too vague`);
  }
  const query = 'secure my home server';
  const local = catalog.matcher.match(query);
  if (local.kind !== 'no-match' || local.reason !== 'too-close') return t.fail(`expected too-close, got ${JSON.stringify(local)}`);
  const federated = getFederatedSources.run({ query }, catalog).content[0]!.text;
  t.match(federated, `${local.closest.slug} in this registry`, 'the leader is named');
  t.match(federated, `${local.contender.slug} in this registry`, 'and so is the runner-up it could not be told from');
});

t.test('with an ephemeral key, get_sources says the key is a throwaway development key; with a configured one it does not (issue 24, item 6)', async (t) => {
  const ephemeral = await prepareCatalog(SHIPPED_REGISTRY, { mode: 'ephemeral', key: generateKey(true).key }, 0.4);
  const text = getSources.run({ query: 'learn rust programming' }, ephemeral).content[0]!.text;
  t.match(text, /^Curator: .* \(public key: \w+; a throwaway development key this server made at start-up: it changes on restart and no curator signed this registry\)$/m);
  const configured = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), 0.4);
  t.notMatch(getSources.run({ query: 'learn rust programming' }, configured).content[0]!.text, /throwaway/);
});

t.test('a query a curator marked as outside a category is told which category it was near and why it is declined, in text and data (issue 24, item 5)', async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), 0.45);
  const result = getSources.run({ query: 'rust game tips' }, catalog);
  t.equal(result.isError, true);
  t.equal(
    result.content[0]!.text.split(/ (?:Otherwise|Rephrase)/)[0],
    'No category answers "rust game tips": it is nearest to Rust Learning (rust-learning), whose curator marked "rust game" as outside its scope, so its sources would not serve it.'
  );
  t.notMatch(result.content[0]!.text, /shares any words/, 'never "no category shares any words"');
  t.same((result.structuredContent as { declined: { outOfScope: unknown } }).declined.outOfScope, { slug: 'rust-learning', name: 'Rust Learning', entries: ['rust game'] });
  const plain = getSources.run({ query: 'xyzzy plugh' }, catalog);
  t.notOk('outOfScope' in (plain.structuredContent as { declined: object }).declined, 'absent when no scope entry decided it');
});

t.test('threshold is applied as its description says: a question holding many of the leader\'s words needs less, down to 0.20 less (issue 33, item 2)', async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), 0.5);
  const description = (getSources.definition.inputSchema as { properties: { threshold: { description: string } } }).properties.threshold.description;
  t.match(description, /needs less: the threshold less 0\.15, and 0\.02 less for each further word, at most 0\.2 less in all \(so 1 still answers such a question scoring 0\.80 or more\)/);
  const long = "I'm a Python developer who wants to learn Rust over the next month to write faster command line tools; which learning resources are actually good and up to date?";
  const answered = getSources.run({ query: long, threshold: 1 }, catalog);
  t.notOk(answered.isError, 'threshold 1 answers a long question that names the category');
  const score = Number(/Match score: (\d\.\d+)/.exec(answered.content[0]!.type === 'text' ? answered.content[0]!.text : '')?.[1]);
  t.ok(score >= 0.8 && score < 1, `with a score under 1 and at least 0.80 (${score})`);
  const declined = getSources.run({ query: 'cargo crates and modules', threshold: 1 }, catalog);
  t.ok(declined.isError, 'a short question under 1 is declined at threshold 1');
  t.equal((declined.structuredContent as { declined: { threshold: number } }).declined.threshold, 1, 'and says the threshold that applied');
});

t.test('declines speak to what was asked (issue 33, item 3): a one-word decline says why a 1.000 was declined and suggests its candidate\'s own example; no "Otherwise" without candidates; no "0 endorsed registries"', async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), 0.5);
  const rust = getSources.run({ query: 'rust' }, catalog);
  const text = rust.content[0]!.type === 'text' ? rust.content[0]!.text : '';
  t.match(text, /a category may score 1\.000 on a word it names, but one word does not say which of its topics is meant/);
  t.match(text, /for example "learn rust programming"\./, "rust-learning's own first example question");
  t.notMatch(text, /harden ssh/, 'never an example of another topic');
  const nothing = getSources.run({ query: 'zzqqxx vvbb' }, catalog);
  const plain = nothing.content[0]!.type === 'text' ? nothing.content[0]!.text : '';
  t.match(plain, /no category comes near it\. Rephrase with the topic's main words, or call list_categories\./);
  t.notMatch(plain, /Otherwise/, 'nothing to be otherwise than');
  const federated = getFederatedSources.run({ query: 'zzqqxx vvbb' }, catalog);
  const fed = federated.content[0]!.type === 'text' ? federated.content[0]!.text : '';
  t.match(fed, /^No category of this registry matches the query well enough\./, 'no peers: no count of them');
});
