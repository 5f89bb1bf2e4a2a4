import { createRequire } from 'node:module';
import { iso31662 } from 'iso-3166';
import { isEverydayWord } from './everyday-words.js';
import { normalizeText } from './normalize.js';

/**
 * Countries and the places inside them, by name, from maintained ISO 3166 data: country names and
 * their common aliases in English ("United Kingdom", "UK", "Great Britain", "USA") from
 * i18n-iso-countries, and first-level subdivisions ("California", "Ontario", "Scotland",
 * "Bavaria") from iso-3166, each read as its country. A place is known by the country it belongs
 * to: a question about California is a question about the United States.
 *
 * A name that is one everyday English word ("Turkey", "Jersey", "Chad" as the word "chad") or
 * shorter than four letters is left out: read as a place it would turn a category away for a
 * bird or a sweater. "UK" and "USA" are kept; "US" only in capitals (lowercase it is "us").
 */
interface PlaceIndex {
  /** Normalised name (words joined by one space) to its country codes ("georgia" is two). */
  readonly byName: ReadonlyMap<string, readonly string[]>;
  /**
   * First words of names to the lengths (in words) of the names they start, longest first: a
   * name is tried only where one can start and only at a length one has, so a question of 240
   * times "new" costs two lookups a word (New York, New South Wales), not five.
   */
  readonly lengthsFrom: ReadonlyMap<string, readonly number[]>;
}

/** Names longer than this many words are not looked for ("Saint Vincent and the Grenadines" is kept: five). */
const MAX_NAME_WORDS = 5;
const KEPT_SHORT = new Set(['uk', 'usa']);

function placeIndex (): PlaceIndex {
  const byName = new Map<string, string[]>();
  const add = (name: string, country: string) => {
    const key = normalizeText(name);
    const words = key.split(' ');
    if (key === '' || words.length > MAX_NAME_WORDS) return;
    if (words.length === 1 && !KEPT_SHORT.has(key) && (key.length < 4 || isEverydayWord(key))) return;
    const list = byName.get(key) ?? [];
    if (!list.includes(country)) list.push(country);
    byName.set(key, list);
  };
  const require = createRequire(import.meta.url);
  const english = require('i18n-iso-countries/langs/en.json') as { countries: Record<string, string | string[]> };
  for (const [code, names] of Object.entries(english.countries)) for (const name of Array.isArray(names) ? names : [names]) add(name, code);
  // First-level subdivisions only (a parent that is a country, not another subdivision).
  for (const { name, parent } of iso31662) if (parent.length === 2) add(name, parent);
  byName.delete('us');
  const lengthsFrom = new Map<string, number[]>();
  for (const key of byName.keys()) {
    const words = key.split(' ');
    const lengths = lengthsFrom.get(words[0]!) ?? [];
    if (!lengths.includes(words.length)) lengths.push(words.length);
    lengthsFrom.set(words[0]!, lengths.sort((a, b) => b - a));
  }
  return { byName, lengthsFrom };
}

// Built when the module loads (about 15 ms, at start-up), not on first use: the first use may be a
// peer's registry being indexed in slices, which must not stall on it.
const index = placeIndex();

/** "US", "U.S." or "U.S.A." written in capitals: the country, not the pronoun. */
const US_IN_CAPITALS = /(?:^|[^A-Za-z.])U\.?S\.?A?\.?(?![A-Za-z])/;

/**
 * The countries a text names (its places, each read as its country). `normalized` is the text as
 * normalizeText leaves it, `unfolded` the text before folding (for "US" in capitals).
 *
 * `mode` says which mentions count:
 * - `asked` (a query): every place except one after "from", which says where the asker comes
 *   from, not where the question applies ("a visa for someone from India");
 * - `scope` (a category's description): only a place after "in" or "in the", and places joined to
 *   it by "and" or "or" ("private renting in England and Wales"): a description that mentions a
 *   country in passing ("trade-ins and UK PCP finance") is not bound to it;
 * - `named` (a category's name, slug and tags): every place.
 */
export function countriesIn (normalized: string, unfolded: string, mode: 'asked' | 'scope' | 'named'): string[] {
  const { byName, lengthsFrom } = index;
  const found: string[] = [];
  const tokens = normalized === '' ? [] : normalized.split(' ');
  let chained = false;
  for (let i = 0; i < tokens.length; i++) {
    const lengths = lengthsFrom.get(tokens[i]!);
    if (lengths === undefined) {
      if (tokens[i] !== 'and' && tokens[i] !== 'or') chained = false;
      continue;
    }
    for (const n of lengths) {
      if (i + n > tokens.length) continue;
      const countries = byName.get(n === 1 ? tokens[i]! : tokens.slice(i, i + n).join(' '));
      if (countries === undefined) continue;
      const before = tokens[i - 1];
      const counts: boolean = mode === 'named' || (mode === 'asked' && before !== 'from') || (mode === 'scope' && (before === 'in' || (before === 'the' && tokens[i - 2] === 'in') || chained));
      if (counts) found.push(...countries);
      chained = mode === 'scope' && counts;
      i += n - 1;
      break;
    }
  }
  if (US_IN_CAPITALS.test(unfolded) && (mode !== 'scope' || /\bin (?:the )?U\.?S\.?A?\b/.test(unfolded))) {
    if (mode !== 'asked' || !/\bfrom (?:the )?U\.?S\.?A?\b/.test(unfolded)) found.push('US');
  }
  return [...new Set(found)];
}
