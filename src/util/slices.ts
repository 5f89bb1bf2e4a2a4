import { performance } from 'node:perf_hooks';

/**
 * Runs work written as steps (a generator that yields between small pieces) to its end, giving
 * the event loop a turn (`pause`) whenever about `sliceMs` of work has run: long work on data a
 * peer chose is served between requests instead of holding them up.
 */
export async function runInSlices<T> (steps: Generator<void, T>, pause: () => Promise<unknown>, sliceMs = 8): Promise<T> {
  let until = performance.now() + sliceMs;
  // Steps are small: the clock is read every 32 of them, not after each.
  for (let n = 1; ; n++) {
    const next = steps.next();
    if (next.done) return next.value;
    if ((n & 31) === 0 && performance.now() >= until) {
      await pause();
      until = performance.now() + sliceMs;
    }
  }
}

/** Runs steps to their end at once (our own registry, at start-up or reload). */
export function runAtOnce<T> (steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}
