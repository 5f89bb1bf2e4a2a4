/**
 * Waits for `ready` to hold, polling every 25 ms, for at most `timeoutMs` (30 s by default): a
 * test waits for the event it needs, however loaded the machine, and a passing test never waits
 * longer than that event takes. Returns whether it held; the assertion after it says what failed.
 */
export async function waitFor (ready: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ready()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
