/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), so that
 * "emial" is one edit from "email". fuse.js proposes candidates, but its score mixes match
 * position and length; this decides whether a candidate is really a typo of the word.
 * Hand-written: a dozen lines, bounded by `max` so it stops early, on words of a few letters.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** How many typos a word of this length may carry and still be recognised. */
export function allowedEdits(length: number): number {
  return length >= 8 ? 2 : 1;
}
