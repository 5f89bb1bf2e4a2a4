/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), so that
 * "emial" is one edit from "email". It decides whether a candidate is really a typo of a word.
 * Hand-written: a dozen lines, bounded by `max` so it stops early, on words of a few letters;
 * its three rows are reused typed arrays because it runs for every candidate of every lookup.
 */
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)] as const;

export function editDistance (a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (b.length + 1 > rows[0].length) rows = [new Int32Array(b.length + 1), new Int32Array(b.length + 1), new Int32Array(b.length + 1)];
  let [before, previous, current] = rows;
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}

/**
 * Whether two words can be within `max` edits, judged by their letters as bags: an insertion or a
 * deletion changes the letters the two do not share by one, a substitution by two, a
 * transposition by none, so more than twice `max` unshared letters rules the pair out. A cheap
 * test (no allocation, one pass over each word) that spares most candidates the full distance.
 */
const counts = new Int32Array(128);
export function mayBeWithin (a: string, b: string, max: number): boolean {
  for (let i = 0; i < a.length; i++) counts[a.charCodeAt(i) & 127]!++;
  for (let i = 0; i < b.length; i++) counts[b.charCodeAt(i) & 127]!--;
  let differing = 0;
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i) & 127;
    if (counts[c]! > 0) differing += counts[c]!;
    counts[c] = 0;
  }
  for (let i = 0; i < b.length; i++) {
    const c = b.charCodeAt(i) & 127;
    if (counts[c]! < 0) differing -= counts[c]!;
    counts[c] = 0;
  }
  return differing <= 2 * max;
}

/** How many typos a word of this length may carry and still be recognised. */
export function allowedEdits (length: number): number {
  return length >= 8 ? 2 : 1;
}
