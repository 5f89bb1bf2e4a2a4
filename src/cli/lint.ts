import { DEFAULT_THRESHOLD, buildMatcher } from '../matcher/matcher.js';
import { contentWords, stem } from '../matcher/normalize.js';
import { categoryPath, entryLabel, sourceByRank } from '../registry/paths.js';
import type { Registry } from '../registry/types.js';
import { isEverydayWord } from '../matcher/everyday-words.js';

/** What the server accepts but a curator should look at, one `path: advice` line each. */
export function lint(registry: Registry, threshold = DEFAULT_THRESHOLD): string[] {
  return [...sharedUrls(registry), ...everydayKeywords(registry), ...selfExclusions(registry), ...misleadingPatterns(registry, threshold)];
}

/**
 * A not-about entry made of the category's own words counts for and against it at once: the
 * curator said two things about the same words.
 */
function selfExclusions(registry: Registry): string[] {
  const warnings: string[] = [];
  for (const [slug, c] of Object.entries(registry.categories)) {
    const own = new Set(contentWords([slug.replace(/-/g, ' '), c.name, c.description, ...c.tags, ...c.keywords, ...c.queryPatterns].join(' ')).map(stem));
    (c.notAbout ?? []).forEach((entry, i) => {
      const words = contentWords(entry);
      if (words.length === 0) warnings.push(`${categoryPath(slug, entryLabel('notAbout', i))}: "${entry}" has only words the matcher ignores, so it excludes nothing`);
      else if (words.every((w) => own.has(stem(w)))) {
        warnings.push(`${categoryPath(slug, entryLabel('notAbout', i))}: "${entry}" is also in the category's own words, so it counts both for and against it; remove it or the words it shares`);
      }
    });
  }
  return warnings;
}

/** A URL listed by two categories: one of them is probably not its best home. */
function sharedUrls(registry: Registry): string[] {
  const warnings: string[] = [];
  const first = new Map<string, string>();
  for (const [slug, c] of Object.entries(registry.categories)) {
    for (const s of c.sources) {
      const here = categoryPath(slug, sourceByRank(s.rank));
      const earlier = first.get(s.url);
      if (earlier === undefined) first.set(s.url, here);
      else warnings.push(`${here}.url: also the URL of ${earlier} (${s.url})`);
    }
  }
  return warnings;
}

/**
 * A keyword counts three times as much as other words, for its category and against the others:
 * an everyday word alone ("rust", "email") would pull "rust removal" or "email etiquette" in.
 */
function everydayKeywords(registry: Registry): string[] {
  const warnings: string[] = [];
  for (const [slug, c] of Object.entries(registry.categories)) {
    c.keywords.forEach((keyword, i) => {
      const words = contentWords(keyword);
      const word = words[0];
      if (words.length === 1 && isEverydayWord(word!)) {
        // The matcher drops single letters and filler ("z-wave" is "wave" to it): say what it sees.
        const seen = word === keyword.trim().toLowerCase() ? `"${keyword}" is` : `"${keyword}" is, to the matcher, the single word "${word}",`;
        warnings.push(
          `${categoryPath(slug, entryLabel('keywords', i))}: ${seen} an everyday English word with other meanings; ` +
            'make it a phrase of this topic (as "rust" goes in "rust lifetimes") or move it to the query patterns',
        );
      }
    });
  }
  return warnings;
}

/**
 * A query pattern is one way of asking for its category. Judged without its own words (the
 * matcher built from the registry minus that one pattern) and at the server's default
 * threshold, it shows where a query worded like it would land: if another category wins, such
 * queries are answered with the wrong sources. A pattern made only of words the matcher ignores
 * adds nothing at all.
 */
function misleadingPatterns(registry: Registry, threshold: number): string[] {
  const warnings: string[] = [];
  for (const [slug, c] of Object.entries(registry.categories)) {
    c.queryPatterns.forEach((pattern, i) => {
      const where = categoryPath(slug, entryLabel('queryPatterns', i));
      if (contentWords(pattern).length === 0) {
        warnings.push(`${where}: "${pattern}" has only words the matcher ignores, so it matches no category`);
        return;
      }
      const without = { ...c, queryPatterns: c.queryPatterns.filter((_, j) => j !== i) };
      const m = buildMatcher({ ...registry, categories: { ...registry.categories, [slug]: without } }).match(pattern, threshold);
      if (m.kind === 'match' && m.slug !== slug) {
        warnings.push(
          `${where}: "${pattern}" matches ${m.slug} (score ${m.score.toFixed(3)}) when judged without itself, ` +
            `so queries worded like it get ${m.slug}'s sources; add keywords or patterns that tie its words to ${slug}`,
        );
      }
    });
  }
  return warnings;
}
