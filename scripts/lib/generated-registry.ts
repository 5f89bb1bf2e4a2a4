import type { Registry } from '../../src/registry/types.js';
import { validateRegistry } from '../../src/registry/validate.js';

/** A small deterministic PRNG (mulberry32), so every run generates the same registry. */
export function random (seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ven', 'tor', 'ash', 'qui', 'rel', 'don', 'sa', 'bri', 'mon', 'zel', 'fa', 'gor', 'hin', 'pul', 'rex', 'tam', 'vo'];

/** A registry of `size` valid categories over a vocabulary of made-up words, plus queries that target them. */
export function generateRegistry (size: number, seed = 42): { registry: Registry; queries: string[] } {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const word = (): string => Array.from({ length: 2 + Math.floor(next() * 2) }, () => pick(SYLLABLES)).join('');
  const vocabulary = Array.from({ length: 6000 }, word);
  const words = (n: number): string => Array.from({ length: n }, () => pick(vocabulary)).join(' ');
  const categories: Record<string, unknown> = {};
  const queries: string[] = [];
  for (let i = 0; i < size; i++) {
    const slug = `topic-${i}`;
    const patterns = Array.from({ length: 15 }, (_, j) => `${words(3 + (j % 4))} ${i}`);
    categories[slug] = {
      name: `Topic ${i} ${words(2)}`,
      description: words(14),
      tags: [...new Set([words(1), words(1)])],
      keywords: [...new Set([words(1), words(1), words(2), words(2), words(1)])],
      queryPatterns: [...new Set(patterns)],
      sources: [1, 2, 3].map((rank) => ({ rank, name: words(2), url: `https://example.org/${slug}/${rank}`, type: 'documentation', why: words(10) })),
    };
    const pattern = pick(patterns);
    queries.push(pattern, `how do I ${pattern} for my team`, `${pattern.slice(0, 2)}x${pattern.slice(2)}`, `${words(12)} ${pattern} ${words(8)}`);
  }
  const check = validateRegistry({ version: '1.0.0', updated: '2026-11-25', curator: { name: 'bench', pubkey: '' }, endorsements: [], categories });
  if (!check.ok) throw new Error(`generated registry is invalid: ${check.problems.slice(0, 3).join('; ')}`);
  return { registry: check.registry, queries };
}
