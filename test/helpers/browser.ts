import { chromium, type Browser } from 'playwright-core';
import { binaryOnPath } from './binary.js';

/**
 * The Chromium the browser tests drive: CHROMIUM_PATH when it is set (taken as given: a wrong
 * path fails the launch rather than skipping), else `chromium` or Debian's headless-only
 * `chromium-headless-shell` on PATH. Only PATH, never a fixed folder: a PATH without a browser
 * is a machine without one, and the tests say they were skipped.
 */
export function chromiumPath (): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured !== undefined && configured !== '') return configured;
  return binaryOnPath('chromium') ?? binaryOnPath('chromium-headless-shell');
}

/**
 * The `skip` option of a test that needs a browser, as redisSkip is for Redis: false when it can
 * run, else the reason, which tap prints. With CI=true nothing is skipped: CI installs Chromium,
 * and a missing one must fail the run rather than pass it quietly.
 */
export function browserSkip (): string | false {
  if (process.env.CI === 'true') return false;
  if (chromiumPath() !== undefined) return false;
  return 'needs Chromium: install it (apt-get install chromium) or set CHROMIUM_PATH';
}

/** Flags for a quiet, self-contained headless run: nothing is fetched but what a test asks for. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A headless Chromium for one test file, closed when it ends. Playwright gives it a fresh
 * temporary profile (user data dir) and removes it on close.
 */
export async function launchBrowser (t: { teardown(fn: () => unknown): void }): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === undefined) throw new Error('Chromium was not found: install it (apt-get install chromium) or set CHROMIUM_PATH');
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
  t.teardown(() => browser.close());
  return browser;
}
