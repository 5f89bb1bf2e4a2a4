import type { Category, Registry } from '../registry/types.js';
import { OverlayMap } from '../util/overlay-map.js';
import { runAtOnce } from '../util/slices.js';
import { decide, decideBeforeRanking, type MatchOutcome } from './decision.js';
import { indexSteps, termOf, type Keywords, type MatcherIndex, type Term } from './index.js';
import { prepareQuery } from './query.js';
import { RULES, type MatcherRules } from './rules.js';
import { createScorer } from './scoring.js';
import { editDistanceIndexSteps } from './spelling.js';

/**
 * How each example question of a registry is matched by the registry without that one question
 * (`check`'s lint of misleading example questions). Rebuilding the whole index per question costs
 * the registry's size each time: 15,000 questions of a 1,000-category registry took over an hour.
 * A category's example question changes only that category's part of the index: the words only
 * it gave the category, and so those words' rarity. So the registry is indexed once, and each
 * question is judged on that index with its category's part replaced by the category indexed
 * without the question (a few hundred words), read through maps that fall back on the whole.
 * The same answer as a rebuild, but for one bound: a misspelt word's corrections are looked up
 * among the whole registry's spellings and those the question alone gave are then skipped, so a
 * word whose eight nearest spellings include those may find fewer.
 */
export function judgeWithoutPattern (registry: Registry, rules: MatcherRules = RULES): (slug: string, pattern: number, threshold: number) => MatchOutcome {
  const ix = runAtOnce(indexSteps(registry, rules, undefined));
  const spelling = runAtOnce(editDistanceIndexSteps(ix.spellings.keys()));
  const alone = (slug: string, c: Category) => runAtOnce(indexSteps({ ...registry, categories: { [slug]: c } }, rules, undefined));
  // Each category indexed alone, once: what its part of the whole index is with every question.
  const parts = new Map(Object.entries(registry.categories).map(([slug, c]) => [slug, alone(slug, c)]));
  // How many categories gave each spelling: one that only the question's category gave leaves with it.
  const spellingOwners = new Map<string, number>();
  for (const part of parts.values()) for (const word of part.spellings.keys()) spellingOwners.set(word, (spellingOwners.get(word) ?? 0) + 1);

  return (slug, pattern, threshold) => {
    const c = registry.categories[slug] as Category;
    const without = { ...c, queryPatterns: c.queryPatterns.filter((_, j) => j !== pattern) };
    const overlay = indexWithout(ix, ix.idOfSlug.get(slug)!, parts.get(slug)!, alone(slug, without), spellingOwners);
    const prepared = prepareQuery(c.queryPatterns[pattern]!);
    const early = decideBeforeRanking(overlay, prepared, threshold, rules);
    if (early !== undefined) return early;
    const scorer = createScorer(overlay, rules, () => spelling);
    return decide(overlay, scorer.rank(prepared, scorer.ownCapitals(prepared)), prepared, threshold, rules);
  };
}

/** The whole index with category `id`'s part as `withoutIx` gives it instead of `withIx` (both the category alone). */
function indexWithout (ix: MatcherIndex, id: number, withIx: MatcherIndex, withoutIx: MatcherIndex, spellingOwners: ReadonlyMap<string, number>): MatcherIndex {
  const changed = new Map<string, { id: number; field: number }[]>();
  for (const stem of new Set([...withIx.terms.keys(), ...withoutIx.terms.keys()])) {
    const before = withIx.terms.get(stem)?.fields[0];
    const after = withoutIx.terms.get(stem)?.fields[0];
    if (before === after) continue;
    const whole = ix.terms.get(stem);
    const others = whole === undefined ? [] : whole.ids.flatMap((other, i) => (other === id ? [] : [{ id: other, field: whole.fields[i]! }]));
    const owners = after === undefined ? others : [...others, { id, field: after }].sort((a, b) => a.id - b.id);
    changed.set(stem, owners);
  }
  const keywords: Keywords[] = [...ix.keywords];
  keywords[id] = withoutIx.keywords[0]!;
  // What a word is to the category (its flags) changes only where being in a keyword phrase alone
  // does: its name, description and tags are the same without the question.
  const phraseOnlyBefore = withIx.keywords[0]!.phraseOnly;
  const phraseOnlyAfter = withoutIx.keywords[0]!.phraseOnly;
  for (const stem of new Set([...phraseOnlyBefore, ...phraseOnlyAfter])) {
    if (changed.has(stem) || phraseOnlyBefore.has(stem) === phraseOnlyAfter.has(stem)) continue;
    const whole = ix.terms.get(stem)!;
    changed.set(stem, whole.ids.map((other, i) => ({ id: other, field: whole.fields[i]! })));
  }
  const terms = new Map<string, Term | undefined>();
  for (const [stem, owners] of changed) terms.set(stem, owners.length === 0 ? undefined : termOf(stem, owners, keywords, ix.slugs));
  const spellings = new Map<string, string | undefined>();
  for (const word of withIx.spellings.keys()) if (!withoutIx.spellings.has(word) && spellingOwners.get(word) === 1) spellings.set(word, undefined);
  return { ...ix, terms: new OverlayMap(ix.terms, terms), spellings: new OverlayMap(ix.spellings, spellings), keywords };
}
