// Reactions in the console, in a real browser (Debian's Chromium driven by playwright-core): the
// chips under a message with counts, a person with a write session adding one from the picker and
// toggling a chip, reactions made elsewhere arriving over the live feed, and an observe-only
// session that sees the chips but cannot react. Screenshots go to test/.artifacts/.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS, launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import { roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

interface Ctx {
  s: AppServer;
  browser: Browser;
  contexts: BrowserContext[];
  dialogs: string[];
  id: string;
}

const ALPHA = TOKENS.alphaOnly.value;
const enc = encodeURIComponent;
const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `console-reactions-${name}.png`), fullPage: false });

const t = suite<Ctx>('reactions in the console');

setupOnce(t, async (ctx) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', name: 'General', members: ['alpha'] }] } });
  const r = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'release 1.4 is out'), ALPHA);
  assert.is(r.status, 200, r.text);
  ctx.id = r.body.message_id;
  const put = await ctx.s.req('PUT', `/v1/messages/${ctx.id}/reactions/${enc('👍')}`, {
    token: ALPHA,
    body: { from: { type: 'agent', id: 'alpha' } },
  });
  assert.is(put.status, 200, put.text);
  ctx.contexts = [];
  ctx.dialogs = [];
  ctx.browser = await launchBrowser();
});
// Each test's pages close with it: left open, they would render every later event and slow the next page's load.
t.after.each(async (ctx) => {
  for (const c of ctx.contexts?.splice(0) ?? []) await c.close().catch(() => undefined);
});
t.after(async (ctx) => {
  for (const c of ctx.contexts ?? []) await c.close().catch(() => {});
  await ctx.browser?.close().catch(() => {});
  await ctx.s?.dispose();
});

async function openAs(ctx: Ctx, token: string): Promise<Page> {
  const page = await openPage(ctx.browser, ctx.contexts, ctx.dialogs);
  await page.goto(`${ctx.s.url}/console/?access_token=${token}`);
  await page.waitForURL(/\/console\/#\/room\/general$/);
  await page.locator('[data-testid=live-status]', { hasText: /^live$/ }).waitFor();
  await page.locator('[data-testid=message]', { hasText: 'release 1.4 is out' }).waitFor();
  return page;
}

const chip = (page: Page, emoji: string) =>
  page.locator('[data-testid=message]', { hasText: 'release 1.4 is out' }).locator(`[data-testid=reaction][data-emoji="${emoji}"]`);

async function reactionsAtServer(ctx: Ctx): Promise<Json[]> {
  const r = await ctx.s.get(`/v1/messages/${ctx.id}/reactions`, TOKENS.observer.value);
  return r.body.reactions;
}

t('a person adds a reaction from the picker and toggles a chip; the server has them', async (ctx) => {
  const page = await openAs(ctx, TOKENS.admin.value);
  await chip(page, '👍').filter({ hasText: '👍 1' }).waitFor();
  assert.is(await chip(page, '👍').getAttribute('title'), 'testnet:alpha');

  const msg = page.locator('[data-testid=message]', { hasText: 'release 1.4 is out' });
  await msg.locator('[data-testid=reaction-add]').click();
  await msg.locator('[data-testid=reaction-picker] button[data-emoji="🎉"]').click();
  await chip(page, '🎉').filter({ hasText: '🎉 1' }).waitFor();
  assert.match((await chip(page, '🎉').getAttribute('class')) ?? '', /\bmine\b/);

  await chip(page, '👍').click();
  await chip(page, '👍').filter({ hasText: '👍 2' }).waitFor();
  await shot(page, 'added');
  assert.equal(await reactionsAtServer(ctx), [
    { emoji: '👍', count: 2, by: ['testnet:alpha', 'testnet:console'] },
    { emoji: '🎉', count: 1, by: ['testnet:console'] },
  ]);

  await chip(page, '👍').click();
  await chip(page, '👍').filter({ hasText: '👍 1' }).waitFor();
  assert.not.match((await chip(page, '👍').getAttribute('class')) ?? '', /\bmine\b/);
  assert.equal((await reactionsAtServer(ctx))[0], { emoji: '👍', count: 1, by: ['testnet:alpha'] });
});

t('reactions made elsewhere arrive live; an observe-only session sees them but cannot react', async (ctx) => {
  const page = await openAs(ctx, TOKENS.observer.value);
  assert.is(await page.locator('[data-testid=reaction-add]').count(), 0);
  assert.ok(await chip(page, '👍').isDisabled());
  const put = await ctx.s.req('PUT', `/v1/messages/${ctx.id}/reactions/${enc('👀')}`, {
    token: ALPHA,
    body: { from: { type: 'agent', id: 'alpha' } },
  });
  assert.is(put.status, 200, put.text);
  await chip(page, '👀').filter({ hasText: '👀 1' }).waitFor();
  const del = await ctx.s.req('DELETE', `/v1/messages/${ctx.id}/reactions/${enc('👀')}`, {
    token: ALPHA,
    body: { from: { type: 'agent', id: 'alpha' } },
  });
  assert.is(del.status, 200, del.text);
  await chip(page, '👀').waitFor({ state: 'detached' });
  await shot(page, 'observer');
  assert.equal(ctx.dialogs, []);
});

t.run();
