// A visitor's first minute in a real browser (Debian's Chromium via playwright-core): the server's
// address leads to the console, and on a public-read network the Sign in control shows how to
// sign in (run `svc console` on the server) instead of doing nothing visible.
// No browser is a failure, not a skip: CI installs chromium (.ci/run).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chromium, type Browser } from 'playwright-core';
import { type AppServer, startApp } from '../helpers/app.js';

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

const t = suite<{ s?: AppServer; browser?: Browser }>('the console front door in a browser');

t.after(async (ctx) => {
  await ctx.browser?.close().catch(() => undefined);
  await ctx.s?.dispose();
});

t('the server address opens the console, and Sign in tells an anonymous visitor to run svc console on the server', async (ctx) => {
  ctx.s = await startApp({ config: { auth: { public_read: true } } });
  ctx.browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 30_000 });
  const page = await (await ctx.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${ctx.s.url}/`);
  assert.match(page.url(), /\/console\/(#.*)?$/);
  const signIn = page.locator('[data-testid=sign-in]');
  await signIn.waitFor({ state: 'visible' });
  const how = page.locator('[data-testid=sign-in-how]');
  assert.not.ok(await how.isVisible(), 'the instruction opens on a click');
  await signIn.locator('summary').click();
  await how.waitFor({ state: 'visible' });
  assert.match((await how.textContent()) ?? '', /To sign in, run svc console on the server/);
});

t.run();
