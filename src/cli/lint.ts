import { DEFAULT_THRESHOLD, buildMatcher } from '../matcher/matcher.js';
import { judgeWithoutPattern } from '../matcher/without-pattern.js';
import Fuse from 'fuse.js';
import { contentWords, normalizeText, stem } from '../matcher/normalize.js';
import { categoryPath, entryLabel, sourceByRank } from '../registry/paths.js';
import type { Registry } from '../registry/types.js';
import { isEverydayWord } from '../matcher/everyday-words.js';
import { softPhraseOf } from '../matcher/index.js';
import { FUNCTION_WORDS } from '../matcher/stop-words.js';

/** What the server accepts but a curator should look at, one `path: advice` line each. */
export function lint (registry: Registry, threshold = DEFAULT_THRESHOLD): string[] {
  return [
    ...sharedUrls(registry),
    ...everydayKeywords(registry),
    ...lostWords(registry),
    ...nearDuplicateKeywords(registry),
    ...selfExclusions(registry),
    ...misleadingPatterns(registry, threshold),
  ];
}

/**
 * The matcher drops single letters and digits, in queries and registries alike ("vitamin c" and
 * "plan c" would otherwise share a topic word with every "a" and "i" of a question), except a
 * letter joined by a hyphen ("z-wave", "I-9"). A keyword or not-about entry that loses one says
 * less than its curator meant ("schedule c" counts as "schedule"; a not-about "plan b" turns away
 * every question holding "plan"), and one that loses every word says nothing at all.
 */
function lostWords (registry: Registry): string[] {
  const warnings: string[] = [];
  for (const [slug, c] of Object.entries(registry.categories)) {
    for (const field of ['keywords', 'notAbout'] as const) {
      (c[field] ?? []).forEach((entry, i) => {
        const where = categoryPath(slug, entryLabel(field, i));
        const kept = contentWords(entry);
        // "i" and "a" are words, not names: only other single characters are lost.
        const lost = normalizeText(entry).split(' ').filter((w) => w.length === 1 && !FUNCTION_WORDS.has(w));
        // A phrase of stop words ("make a will") counts whole; a not-about entry of nothing but ignored words is reported by selfExclusions.
        if (kept.length === 0 && softPhraseOf(entry) === undefined && field === 'keywords') {
          warnings.push(`${where}: "${entry}" has only words the matcher ignores (see check --ignored-words), so it never counts`);
        } else if (kept.length > 0 && lost.length > 0) {
          warnings.push(
            `${where}: "${entry}" is read as "${kept.join(' ')}": the matcher ignores single letters and digits (${lost.map((w) => `"${w}"`).join(', ')}), ` +
              'in questions too, unless joined to a word by a hyphen ("I-9"); name the topic in words it keeps'
          );
        }
      });
    }
  }
  return warnings;
}

/**
 * A not-about entry may use the category's own words (the landlord's side of a tenants' topic):
 * the matcher turns a query away only when it holds the whole entry. What deserves a look is an
 * entry that turns away the curator's own example questions: the two say opposite things.
 */
function selfExclusions (registry: Registry): string[] {
  const warnings: string[] = [];
  const matcher = buildMatcher(registry);
  for (const [slug, c] of Object.entries(registry.categories)) {
    const turnedAway = new Map<string, string[]>();
    for (const pattern of c.queryPatterns) {
      for (const entry of matcher.explain(pattern).outOfScope.get(slug) ?? []) turnedAway.set(entry, [...(turnedAway.get(entry) ?? []), pattern]);
    }
    (c.notAbout ?? []).forEach((entry, i) => {
      const where = categoryPath(slug, entryLabel('notAbout', i));
      if (contentWords(entry).length === 0) return warnings.push(`${where}: "${entry}" has only words the matcher ignores, so it excludes nothing`);
      const patterns = turnedAway.get(entry);
      if (patterns === undefined) return;
      const shared = contentWords(entry).filter((w) => patterns.some((p) => contentWords(p).map(stem).includes(stem(w))));
      warnings.push(
        `${where}: "${entry}" turns away ${patterns.length === 1 ? 'the example question' : `${patterns.length} example questions, among them`} "${patterns[0]}" ` +
          `(both hold ${shared.map((w) => `"${w}"`).join(', ')}); make the entry more specific, or remove the example question if the entry is right`
      );
    });
  }
  return warnings;
}

/** Past this many keywords the near-duplicate check is left out (it compares keywords pairwise within a first letter). */
export const MAX_KEYWORDS_COMPARED = 5000;

/**
 * A keyword of one category that is the same, or nearly, as a keyword of another ("password
 * managers", "password manager"): a query holding it weighs for both, and is often too close to
 * call. fuse.js fits here: a fuzzy lookup among a list of names, run once by a curator, where its
 * cost (about a millisecond per keyword on the shipped registry) does not matter; it is kept out
 * of the query path (see the README's Match quality).
 */
function nearDuplicateKeywords (registry: Registry): string[] {
  const all = Object.entries(registry.categories).flatMap(([slug, c]) => c.keywords.map((keyword, i) => ({ slug, i, keyword, norm: normalizeText(keyword) })));
  if (all.length > MAX_KEYWORDS_COMPARED) return [];
  const byLetter = new Map<string, typeof all>();
  for (const k of all) {
    if (k.norm === '') continue;
    const group = byLetter.get(k.norm[0]!);
    if (group === undefined) byLetter.set(k.norm[0]!, [k]);
    else group.push(k);
  }
  const warnings: string[] = [];
  const reported = new Set<string>();
  for (const group of byLetter.values()) {
    const fuse = new Fuse(group, { keys: ['norm'], threshold: 0.1, includeScore: true, ignoreLocation: true });
    for (const k of group) {
      for (const { item } of fuse.search(k.norm)) {
        // Near in spelling, not one inside the other: "&str" is no near-duplicate of "strfry".
        if (item.slug === k.slug || Math.abs(item.norm.length - k.norm.length) > Math.max(2, Math.floor(k.norm.length / 5))) continue;
        const pair = [`${k.slug}:${k.i}`, `${item.slug}:${item.i}`].sort().join('|');
        if (reported.has(pair)) continue;
        reported.add(pair);
        const same = item.norm === k.norm;
        warnings.push(
          `${categoryPath(k.slug, entryLabel('keywords', k.i))}: "${k.keyword}" is ${same ? 'also' : 'nearly'} "${item.keyword}", a keyword of ${categoryPath(item.slug)}: ` +
            'a query holding it weighs for both and may be too close to call; keep it in the category whose sources serve it'
        );
      }
    }
  }
  return warnings;
}

/** A URL listed by two categories: one of them is probably not its best home. */
function sharedUrls (registry: Registry): string[] {
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

/** The words of a text the matcher ignores (stop words, single letters), each once, in order. */
export function ignoredWordsOf (text: string): string[] {
  const kept = new Set(contentWords(text));
  return [...new Set(normalizeText(text).split(' ').filter((w) => w !== '' && !kept.has(w)))];
}

/**
 * A keyword counts twice as much as other words, for its category and against the others:
 * an everyday word alone ("rust", "email") would pull "rust removal" or "email etiquette" in,
 * unless it is the topic's own word, which the category's name, description or tags then use
 * ("telescope" in a category about choosing a first telescope). Advice never says to remove a
 * word the category's own text supports. (A phrase of several words is read whole: its stop words
 * count inside it, "first aid", "make a will", and its pure function words only join it, "power of attorney".)
 */
function everydayKeywords (registry: Registry): string[] {
  const warnings: string[] = [];
  for (const [slug, c] of Object.entries(registry.categories)) {
    const described = new Set(contentWords([slug.replace(/-/g, ' '), c.name, c.description, ...c.tags].join(' ')).map(stem));
    c.keywords.forEach((keyword, i) => {
      const where = categoryPath(slug, entryLabel('keywords', i));
      const words = contentWords(keyword);
      const ignored = ignoredWordsOf(keyword);
      const word = words[0];
      if (words.length === 1 && isEverydayWord(word!)) {
        if (described.has(stem(word!))) return;
        // The matcher drops single letters and filler ("vitamin c" is "vitamin" to it): say what it sees.
        const seen = word === keyword.trim().toLowerCase() ? `"${keyword}" is` : `"${keyword}" is, to the matcher, the single word "${word}" (it ignores ${ignored.map((w) => `"${w}"`).join(', ')}),`;
        warnings.push(
          `${where}: ${seen} an everyday English word with other meanings that the category's name, description and tags do not use, ` +
            'so as a keyword it pulls in questions about its other meanings. If it is this topic\'s own word, say so in the description ' +
            '(then it is no longer flagged); otherwise make it a phrase of this topic (as "rust" goes in "rust lifetimes")'
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
function misleadingPatterns (registry: Registry, threshold: number): string[] {
  const warnings: string[] = [];
  const judge = judgeWithoutPattern(registry);
  for (const [slug, c] of Object.entries(registry.categories)) {
    c.queryPatterns.forEach((pattern, i) => {
      const where = categoryPath(slug, entryLabel('queryPatterns', i));
      if (contentWords(pattern).length === 0) {
        warnings.push(`${where}: "${pattern}" has only words the matcher ignores, so it matches no category`);
        return;
      }
      const m = judge(slug, i, threshold);
      if (m.kind === 'match' && m.slug !== slug) {
        warnings.push(
          `${where}: "${pattern}" matches ${m.slug} (score ${m.score.toFixed(3)}) when judged without itself, ` +
            `so queries worded like it get ${m.slug}'s sources; add keywords or patterns that tie its words to ${slug}`
        );
      }
    });
  }
  return warnings;
}
