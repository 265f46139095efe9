// A visitor's first minute in a real browser (Debian's Chromium via playwright-core): the server's
// address leads to the console, and on a public-read network the Sign in control shows how to
// sign in (run `svc console` on the server) instead of doing nothing visible.
// No browser is a failure, not a skip: CI installs chromium (.ci/run).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchBrowser, openPage } from '../helpers/browser.js';
import { type AppServer, startApp } from '../helpers/app.js';

const t = suite<{ s?: AppServer; browser?: Browser; contexts: BrowserContext[] }>('the console front door in a browser');

t.after(async (ctx) => {
  for (const c of ctx.contexts ?? []) await c.close().catch(() => undefined);
  await ctx.browser?.close().catch(() => undefined);
  await ctx.s?.dispose();
});

t('the server address opens the console, and Sign in tells an anonymous visitor to run svc console on the server', async (ctx) => {
  ctx.s = await startApp({ config: { auth: { public_read: true } } });
  ctx.browser = await launchBrowser();
  ctx.contexts = [];
  const page = await openPage(ctx.browser, ctx.contexts, []);
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
