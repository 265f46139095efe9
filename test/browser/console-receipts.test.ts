// The console's delivered and read marks on its own messages (docs/receipts.md), in a real browser:
// a message the person sends shows "not yet delivered", then "delivered" once the agent's runtime
// ACKs it, then "read" once the agent reads; what the console shows counts as read by its person.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS, launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import { attachAs, type AttachClient } from '../helpers/live.js';
import { eventually, roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

const ADMIN: string = TOKENS.admin.value;

interface Ctx {
  s: AppServer;
  browser: Browser;
  contexts: BrowserContext[];
  page: Page;
  ann: AttachClient;
}

const t = suite<Ctx>("the console's receipt marks in a browser");

setupOnce(t, async (ctx) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  ctx.contexts = [];
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', name: 'General', members: ['alpha', 'ann'] }] } });
  const r = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'hello console'), TOKENS.alphaOnly.value);
  assert.is(r.status, 200, r.text);
  ctx.browser = await launchBrowser();
  ctx.page = await openPage(ctx.browser, ctx.contexts, []);
  await ctx.page.goto(`${ctx.s.url}/console/?access_token=${ADMIN}`);
  await ctx.page.waitForURL(/\/console\/#\/room\/general$/);
  await ctx.page.locator('[data-testid=message]').first().waitFor();
});

t.after(async (ctx) => {
  await ctx.ann?.close();
  await ctx.browser?.close().catch(() => undefined);
  await ctx.s?.dispose();
});

t('what the console shows counts as read by its person', async ({ s }) => {
  const history = await s.get('/v1/rooms/general/messages', ADMIN);
  const id = history.body.messages[0].id as string;
  await eventually(async () => {
    const r = await s.get(`/v1/messages/${id}/receipts`, ADMIN);
    return (r.body.receipts as Json[]).some((x) => x.reader.type === 'human' && x.reader.id === 'console' && x.state === 'read');
  });
});

t('a sent message is marked not delivered, then delivered after the ACK, then read', async (ctx) => {
  const { page, s } = ctx;
  await page.fill('#composer-text', 'are you there, ann?');
  await page.click('#composer-send');
  const mine = page.locator('[data-testid=message]', { hasText: 'are you there, ann?' });
  await mine.locator('[data-testid=receipts]', { hasText: 'not yet delivered to alpha, ann' }).waitFor();

  const { c } = await attachAs(s, { network_id: 'testnet', agent: { id: 'ann' }, cursor: '0' }, { token: ADMIN });
  ctx.ann = c;
  c.ack((await c.message('are you there, ann?')).cursor);
  await mine.locator('[data-testid=receipts]', { hasText: '✓ delivered to ann' }).waitFor();
  assert.match((await mine.locator('[data-testid=receipts]').textContent()) ?? '', 'not yet delivered to alpha');
  await page.screenshot({ path: path.join(ARTIFACTS, 'console-receipts-delivered.png') });

  assert.is((await s.get('/v1/rooms/general/messages?as=ann', ADMIN)).status, 200);
  await mine.locator('[data-testid=receipts]', { hasText: '✓✓ read by ann' }).waitFor();
  await page.screenshot({ path: path.join(ARTIFACTS, 'console-receipts-read.png') });
  // Messages of others carry no marks.
  assert.is(await page.locator('[data-testid=message]', { hasText: 'hello console' }).locator('[data-testid=receipts]').count(), 0);
});

t.run();
