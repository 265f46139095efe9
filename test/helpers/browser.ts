// Debian's Chromium driven by playwright-core, for the browser tests. The test machine has no
// internet: without these flags Chromium stalls on background connections.

import path from 'node:path';
import type { Test } from 'uvu';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './server.js';

const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const ARTIFACTS = path.join(ROOT, 'test/.artifacts');

/** Starts Chromium; no browser is a failure, not a skip. */
async function startChromium(): Promise<Browser> {
  try {
    return await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 30_000 });
  } catch (err) {
    throw new Error(`cannot launch Chromium at ${CHROMIUM} (apt-get install chromium): ${(err as Error).message}`);
  }
}

/** How long the shared Chromium outlives its last user: the next file of the process takes it over. */
const LINGER_MS = 1000;
let shared: Promise<Browser> | undefined;
let users = 0;
let lingering: NodeJS.Timeout | undefined;

/**
 * Chromium, one per process: the files that share a test process (scripts/test-group.mjs) share it
 * too, for a start costs about a second of CPU. The Browser returned is the shared one, except that
 * its close() only gives it back; Chromium stops a moment after the last is given back, when no
 * next file took it (a file's contexts are its own to close).
 */
export async function launchBrowser(): Promise<Browser> {
  clearTimeout(lingering);
  users++;
  shared ??= startChromium();
  shared.catch(() => (shared = undefined));
  return lend(await shared, async () => {
    if (--users > 0) return;
    lingering = setTimeout(() => {
      const closing = shared;
      shared = undefined;
      kept = [];
      void closing?.then((b) => b.close()).catch(() => undefined);
    }, LINGER_MS);
  });
}

/** `real` as a borrower sees it: the same object, except that its close() gives it back, once. */
function lend<T extends { close(): Promise<void> }>(real: T, giveBack: () => Promise<void>): T {
  const lease = Object.create(real) as T;
  let given = false;
  lease.close = async () => {
    if (given) return;
    given = true;
    await giveBack();
  };
  return lease;
}

/** How a page looks: its viewport (1280 x 800 unless given) and colour scheme. */
export interface PageOptions {
  width?: number;
  height?: number;
  dark?: boolean;
  /** A new context and renderer, never a kept one: for timings measured inside the page. */
  fresh?: boolean;
}

/** Contexts (one page each) that tests gave back, reset, for the next openPage of the process. */
let kept: { context: BrowserContext; page: Page }[] = [];

/**
 * A page as in a fresh context: no cookies, storage, permissions, routes or listeners of an earlier
 * test, that records (and dismisses) every dialog into `dialogs`. Its context goes into `contexts`;
 * closing it gives the context and page back, reset, for the next test: a kept page starts no
 * renderer and revalidates the console's files from its cache (the browser area took about 7% less
 * CPU, Chromium's included). A page that cannot be reset is closed instead.
 */
export async function openPage(browser: Browser, contexts: BrowserContext[], dialogs: string[], opts: PageOptions = {}): Promise<Page> {
  const viewport = { width: opts.width ?? 1280, height: opts.height ?? 800 };
  const colorScheme = opts.dark ? 'dark' : 'light';
  let k = opts.fresh ? undefined : kept.pop();
  if (k) {
    await k.page.setViewportSize(viewport);
    await k.page.emulateMedia({ colorScheme });
  } else {
    const context = await browser.newContext({ viewport, colorScheme });
    k = { context, page: await context.newPage() };
  }
  const given = k;
  contexts.push(lend(given.context, () => giveBack(given)));
  given.page.setDefaultTimeout(10_000);
  given.page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return given.page;
}

/** Playwright's own listeners on a page: every other was a test's. */
const OWN_EVENTS = new Set(['close', 'crash']);

async function giveBack(k: { context: BrowserContext; page: Page }): Promise<void> {
  const { context, page } = k;
  try {
    for (const name of (page as unknown as { eventNames(): (string | symbol)[] }).eventNames())
      if (!OWN_EVENTS.has(String(name))) page.removeAllListeners(String(name));
    for (const other of context.pages()) if (other !== page) await other.close();
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await context.unrouteAll({ behavior: 'ignoreErrors' });
    // sessionStorage belongs to the tab, so it is cleared there; setStorageState clears the rest.
    if (page.url().startsWith('http')) await page.evaluate('sessionStorage.clear()');
    await page.goto('about:blank');
    await context.setStorageState({ cookies: [], origins: [] });
    await context.clearPermissions();
    kept.push(k);
  } catch {
    await context.close().catch(() => undefined);
  }
}

/** uvu ignores an error thrown in `before` (the suite then "passes" with no test run); a setup run
 * once from `before.each` makes a failed setup fail every test instead. */
export function setupOnce<T>(t: Test<T>, fn: (ctx: T) => Promise<void>): void {
  let ready: Promise<void> | undefined;
  t.before.each(async (ctx) => {
    ready ??= fn(ctx);
    await ready;
  });
}
