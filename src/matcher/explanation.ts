import type { MatchOutcome } from './decision.js';
import { rarity, type MatcherIndex } from './index.js';
import type { PreparedQuery } from './query.js';
import type { MatcherRules } from './rules.js';
import type { Scorer } from './scoring.js';
import { stem } from './normalize.js';
import { isStopWordSlip } from './stop-words.js';

/** A query word that counted for the category: `inPhrase`, a stop word that counts inside the curator's phrase it is part of. */
export interface ExplainedWord {
  readonly word: string;
  readonly weight: number;
  readonly keyword: boolean;
  readonly corrected?: string;
  readonly inPhrase?: true;
}

/** How each word of a query counted toward the chosen category (or the closest one). */
export interface Explanation {
  readonly outcome: MatchOutcome;
  /** Words that count for that category, with their weight (a keyword weighs more: see rules.ts). */
  readonly forCategory: readonly ExplainedWord[];
  /** Its own words that did not count: it holds them only inside a keyword phrase the query does not hold whole. */
  readonly notCounted: readonly string[];
  /** Registry words that belong to other categories only: they count against it. */
  readonly against: readonly string[];
  /** Words no category knows: they count against every category. */
  readonly unknown: readonly string[];
  /** Categories the query is out of scope for, with the curator's not-about entries it holds. */
  readonly outOfScope: ReadonlyMap<string, readonly string[]>;
}

/** What decided a query, for curators (`check --query`): the outcome and how each word counted. */
export function explainOutcome (ix: MatcherIndex, scorer: Scorer, rules: MatcherRules, prepared: PreparedQuery, outcome: MatchOutcome): Explanation {
  const slug = outcome.kind === 'match' ? outcome.slug : outcome.closest?.slug;
  const id = slug === undefined ? undefined : ix.idOfSlug.get(slug);
  const forCategory: ExplainedWord[] = [];
  const notCounted: string[] = [];
  const against: string[] = [];
  const unknown: string[] = [];
  const capitals = scorer.ownCapitals(prepared);
  const { read, sequence } = scorer.readWords(prepared, capitals);
  const strong = id === undefined ? undefined : scorer.keywordStems(sequence, capitals).get(id);
  for (const [i, hit] of read.entries()) {
    const word = prepared.words[i]!;
    if (hit === undefined) {
      if (!isStopWordSlip(word)) unknown.push(word);
      continue;
    }
    const at = id === undefined ? -1 : hit.term.ids.indexOf(id);
    if (at !== -1 && (strong?.has(hit.stem) === true || !ix.keywords[id!]!.phraseOnly.has(hit.stem))) {
      const keyword = strong?.has(hit.stem) === true;
      const weight = Math.round(hit.term.weight * hit.factor * (keyword ? rules.keywordWeight : hit.term.fields[at]!) * 1000) / 1000;
      forCategory.push({ word, weight, keyword, ...(hit.factor < 1 ? { corrected: hit.stem } : {}) });
    } else if (at !== -1) notCounted.push(word);
    else against.push(word);
  }
  if (id !== undefined && rules.stopWordsInPhrases) forCategory.push(...stopWordsInPhrase(ix, scorer, rules, prepared, id));
  return { outcome, forCategory, notCounted, against, unknown, outOfScope: scorer.excluded(prepared.stems) };
}

/** The stop words that count for category `id` inside one of its phrases the query holds whole ("first" of "first aid"). */
function stopWordsInPhrase (ix: MatcherIndex, scorer: Scorer, rules: MatcherRules, prepared: PreparedQuery, id: number): ExplainedWord[] {
  const words: ExplainedWord[] = [];
  const tokens = prepared.text.split(' ');
  for (const [s, ids] of scorer.softPhraseHits(prepared.phraseWords)) {
    if (!ids.has(id)) continue;
    const word = tokens.find((w) => stem(w) === s) ?? s;
    const weight = Math.round(rarity(ix.slugs.length, ids.size) * rules.keywordWeight * 1000) / 1000;
    words.push({ word, weight, keyword: true, inPhrase: true });
  }
  return words;
}
