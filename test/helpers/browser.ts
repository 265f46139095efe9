// Debian's Chromium driven by playwright-core, for the browser tests. The test machine has no
// internet: without these flags Chromium stalls on background connections.

import path from 'node:path';
import type { Test } from 'uvu';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './server.js';

export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
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
  const browser = await shared;
  let given = false;
  const lease = Object.create(browser) as Browser;
  lease.close = async () => {
    if (given) return;
    given = true;
    if (--users > 0) return;
    lingering = setTimeout(() => {
      const closing = shared;
      shared = undefined;
      void closing?.then((b) => b.close()).catch(() => undefined);
    }, LINGER_MS);
  };
  return lease;
}

/** A page in a fresh context that records (and dismisses) every dialog into `dialogs`. */
export async function openPage(browser: Browser, contexts: BrowserContext[], dialogs: string[]): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return page;
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
