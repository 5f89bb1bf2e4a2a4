import { BoundedMemo } from '../util/bounded-memo.js';
import Fuse from 'fuse.js';
import type { Category, Registry } from '../registry/types.js';
import { allowedEdits, editDistance } from './edit-distance.js';
import { contentWords, stem } from './normalize.js';

export const DEFAULT_THRESHOLD = 0.4;

export interface MatchCandidate {
  readonly slug: string;
  readonly score: number;
}

export type MatchOutcome =
  | {
      readonly kind: 'match';
      readonly slug: string;
      readonly category: Category;
      readonly score: number;
      readonly runnerUp: MatchCandidate | null;
    }
  | {
      readonly kind: 'no-match';
      /** `empty-query`: nothing left after normalisation; `below-threshold`: no category scored enough. */
      readonly reason: 'empty-query' | 'below-threshold';
      readonly closest: MatchCandidate | null;
      readonly threshold: number;
    };

export interface Matcher {
  match(query: string, threshold?: number): MatchOutcome;
  /** How many rankings and word corrections are remembered now (each bounded). */
  remembered(): { readonly rankings: number; readonly corrections: number };
}

/** How loosely fuse.js proposes spelling candidates (its score, 0 = exact); editDistance decides. */
const TYPO_CANDIDATES = 0.45;
/** Shorter words are too ambiguous to correct ("rust" vs "trust"). */
const MIN_TYPO_LENGTH = 5;
/** How many unknown words' corrections the matcher remembers. */
export const MAX_REMEMBERED_WORDS = 10_000;
/** How many rankings (by normalised query) the matcher remembers. */
export const MAX_REMEMBERED_RANKINGS = 5_000;
/** A curated keyword (a tool name, jargon) says more about the topic than an everyday word. */
const KEYWORD_BONUS = 3;
/**
 * Weight of a query word the registry has never seen, relative to the rarest registry word.
 * When a category shares only one everyday word with the query, unknown words weigh heavily:
 * "rust removal" and "bitcoin price" share one word with a category and mean something else.
 * When it shares a keyword or several words, the query is about that topic and unknown words
 * are context ("my user wants to run bitcoin core on a spare laptop").
 */
const UNKNOWN_WEIGHT_WEAK = 1.6;
const UNKNOWN_WEIGHT_STRONG = 0.5;

interface Term {
  readonly weight: number;
  readonly slugs: readonly string[];
}

interface Hit {
  readonly stem: string;
  readonly term: Term;
  /** 1 for an exact word, less for a corrected typo. */
  readonly factor: number;
}

interface Keywords {
  /** Stems of the category's name and slug. */
  readonly name: ReadonlySet<string>;
  /** Stems of one-word keywords. */
  readonly single: ReadonlySet<string>;
  /** Stem sequences of keywords of several words; they count when they appear in a row. */
  readonly phrases: readonly (readonly string[])[];
}

/**
 * Builds the matcher for one registry, once. A category's score weighs the query words it
 * knows (rare words and curated keywords count more) against the query words that point
 * elsewhere or nowhere; fuse.js corrects misspelt words against the registry's vocabulary.
 */
export function buildMatcher(registry: Registry, defaultThreshold = DEFAULT_THRESHOLD): Matcher {
  const slugs = Object.keys(registry.categories).sort();
  const { terms, spellings, keywords } = indexTerms(registry, slugs);
  const rarest = Math.log(1 + Math.max(slugs.length, 1));
  // One small fuse.js index per first letter: typists rarely miss the first letter, and
  // searching ~50 words instead of the whole vocabulary keeps a lookup in microseconds.
  const byInitial = new Map<string, string[]>();
  for (const word of spellings.keys()) {
    const list = byInitial.get(word[0]!);
    if (list === undefined) byInitial.set(word[0]!, [word]);
    else list.push(word);
  }
  const vocabulary = new Map(
    [...byInitial].map(([initial, list]) => [initial, new Fuse(list, { threshold: TYPO_CANDIDATES, minMatchCharLength: 3 })]),
  );

  // Misspelt and unknown words recur across queries; remembering what each resolved to spares
  // fuse.js the same search. Bounded: emptied when full, so memory stays flat under any traffic.
  const corrections = new BoundedMemo<string, Hit | null>(MAX_REMEMBERED_WORDS);
  // Agents ask the same things in different case and punctuation: rankings are remembered by
  // normalised query. Bounded the same way.
  const rankings = new BoundedMemo<string, readonly MatchCandidate[]>(MAX_REMEMBERED_RANKINGS);

  function resolve(word: string): Hit | undefined {
    const exact = stem(word);
    const term = terms.get(exact);
    if (term !== undefined) return { stem: exact, term, factor: 1 };
    if (word.length < MIN_TYPO_LENGTH) return undefined;
    return corrections.get(word, (w) => correct(w) ?? null) ?? undefined;
  }

  /** The registry word `word` is a typo of, if any. */
  function correct(word: string): Hit | undefined {
    const max = allowedEdits(word.length);
    // "bread" is not a typo of "dread": only words with the same first letter are candidates.
    for (const candidate of vocabulary.get(word[0]!)?.search(word, { limit: 3 }) ?? []) {
      const edits = editDistance(word, candidate.item, max);
      if (edits > max) continue;
      const corrected = spellings.get(candidate.item)!;
      // A corrected word counts for a little less than one spelt right.
      return { stem: corrected, term: terms.get(corrected)!, factor: 1 - 0.15 * edits };
    }
    return undefined;
  }

  /** The stems of `sequence` that are keywords of `slug`, alone or as part of a keyword phrase. */
  function keywordStems(slug: string, sequence: readonly string[]): Set<string> {
    const k = keywords.get(slug)!;
    const found = new Set(sequence.filter((s) => k.single.has(s)));
    for (const phrase of k.phrases) {
      for (let i = 0; i + phrase.length <= sequence.length; i++) {
        if (phrase.every((s, j) => sequence[i + j] === s)) phrase.forEach((s) => found.add(s));
      }
    }
    return found;
  }

  function rank(words: readonly string[]): MatchCandidate[] {
    const hits = new Map<string, Hit>();
    const sequence: string[] = [];
    let unknown = 0;
    for (const word of words) {
      const hit = resolve(word);
      if (hit === undefined) {
        unknown++;
        sequence.push('');
        continue;
      }
      sequence.push(hit.stem);
      if ((hits.get(hit.stem)?.factor ?? 0) < hit.factor) hits.set(hit.stem, hit);
    }
    const candidates = new Set<string>();
    for (const hit of hits.values()) hit.term.slugs.forEach((slug) => candidates.add(slug));
    // A keyword weighs as much against the other categories as it weighs for its own.
    const strongBySlug = new Map([...candidates].map((slug) => [slug, keywordStems(slug, sequence)]));
    const strongAnywhere = new Set([...strongBySlug.values()].flatMap((set) => [...set]));

    const ranked: (MatchCandidate & { named: number })[] = [];
    for (const slug of candidates) {
      const strong = strongBySlug.get(slug)!;
      const name = keywords.get(slug)!.name;
      let evidence = 0;
      let against = 0;
      let shared = 0;
      let named = 0;
      for (const hit of hits.values()) {
        if (hit.term.slugs.includes(slug)) {
          evidence += hit.term.weight * hit.factor * (strong.has(hit.stem) ? KEYWORD_BONUS : 1);
          if (name.has(hit.stem)) named++;
          shared++;
        } else {
          against += hit.term.weight * (strongAnywhere.has(hit.stem) ? KEYWORD_BONUS : 1);
        }
      }
      // Strong evidence: a keyword, or everyday words worth at least two words unique to this category.
      const perUnknown = strong.size > 0 || (shared > 1 && evidence >= 2 * rarest) ? UNKNOWN_WEIGHT_STRONG : UNKNOWN_WEIGHT_WEAK;
      // Long requests carry more context words: their weight grows with the square root of their number.
      against += Math.sqrt(unknown) * perUnknown * rarest;
      ranked.push({ slug, score: round(evidence / (evidence + against)), named });
    }
    // Ties go to the category whose own name holds more of the query's words ("rust"), then by slug.
    return ranked
      .sort((a, b) => b.score - a.score || b.named - a.named || (a.slug < b.slug ? -1 : 1))
      .map(({ slug, score }) => ({ slug, score }));
  }

  return {
    match(query, threshold = defaultThreshold) {
      const words = contentWords(query);
      if (words.length === 0) {
        return { kind: 'no-match', reason: 'empty-query', closest: null, threshold };
      }
      const ranking = rankings.get(words.join(' '), () => Object.freeze(rank(words).map((c) => Object.freeze(c))));
      const [best, second] = ranking;
      if (best === undefined || best.score === 0 || best.score < threshold) {
        return { kind: 'no-match', reason: 'below-threshold', closest: best ?? null, threshold };
      }
      const category = registry.categories[best.slug] as Category;
      return { kind: 'match', slug: best.slug, category, score: best.score, runnerUp: second ?? null };
    },
    remembered: () => ({ rankings: rankings.size, corrections: corrections.size }),
  };
}

/** Every stem the registry uses with the categories that use it, each spelling's stem, and each category's keywords. */
function indexTerms(registry: Registry, slugs: readonly string[]) {
  const owners = new Map<string, string[]>();
  const spellings = new Map<string, string>();
  const keywords = new Map<string, Keywords>();
  for (const slug of slugs) {
    const c = registry.categories[slug] as Category;
    const text = [slug.replace(/-/g, ' '), c.name, c.description, ...c.tags, ...c.keywords, ...c.queryPatterns].join(' ');
    const stems = new Set<string>();
    for (const word of contentWords(text)) {
      const s = stem(word);
      spellings.set(word, s);
      stems.add(s);
    }
    for (const s of stems) {
      const list = owners.get(s) ?? [];
      list.push(slug);
      owners.set(s, list);
    }
    const single = new Set<string>();
    const phrases: string[][] = [];
    for (const keyword of c.keywords) {
      const seq = contentWords(keyword).map(stem);
      if (seq.length === 1) single.add(seq[0]!);
      else if (seq.length > 1) phrases.push(seq);
    }
    const name = new Set(contentWords(`${slug.replace(/-/g, ' ')} ${c.name}`).map(stem));
    keywords.set(slug, { name, single, phrases });
  }
  const terms = new Map<string, Term>();
  for (const [s, list] of owners) {
    terms.set(s, { weight: Math.log(1 + slugs.length / list.length), slugs: list });
  }
  return { terms, spellings, keywords };
}

/** Scores are reported to agents; three decimals also make ties exact. */
function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
