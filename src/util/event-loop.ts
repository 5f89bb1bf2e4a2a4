/**
 * Lets the event loop run (timers, I/O, other requests) before going on: what a long loop on the
 * main thread awaits every few thousand steps, so that no request waits for it as a whole.
 */
export const letEventLoopRun = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Steps of a long loop between two pauses: a few milliseconds of work on this machine. */
export const STEPS_BETWEEN_PAUSES = 2_000;
