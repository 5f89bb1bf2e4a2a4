import type { MatchOutcome } from './decision.js';
import type { MatcherIndex } from './index.js';
import type { PreparedQuery } from './query.js';
import type { MatcherRules } from './rules.js';
import type { Scorer } from './scoring.js';
import { isStopWordSlip } from './stop-words.js';

/** How each word of a query counted toward the chosen category (or the closest one). */
export interface Explanation {
  readonly outcome: MatchOutcome;
  /** Words that count for that category, with their weight (a keyword weighs more: see rules.ts). */
  readonly forCategory: readonly { readonly word: string; readonly weight: number; readonly keyword: boolean; readonly corrected?: string }[];
  /** Registry words that belong to other categories only: they count against it. */
  readonly against: readonly string[];
  /** Words no category knows: they count against every category. */
  readonly unknown: readonly string[];
  /** Categories the query is out of scope for, with the curator's not-about entries it holds. */
  readonly outOfScope: ReadonlyMap<string, readonly string[]>;
}

/** What decided a query, for curators (`check --query`): the outcome and how each word counted. */
export function explainOutcome(ix: MatcherIndex, scorer: Scorer, rules: MatcherRules, prepared: PreparedQuery, outcome: MatchOutcome): Explanation {
  const slug = outcome.kind === 'match' ? outcome.slug : outcome.closest?.slug;
  const id = slug === undefined ? undefined : ix.idOfSlug.get(slug);
  const forCategory: { word: string; weight: number; keyword: boolean; corrected?: string }[] = [];
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
    } else against.push(word);
  }
  return { outcome, forCategory, against, unknown, outOfScope: scorer.excluded(prepared.stems) };
}
