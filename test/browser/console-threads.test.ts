// Threads in the console, in a real browser: a thread opens in a side panel beside its room (the
// room stays in view), a person replies in it, starts a new one from a message's "Reply in thread"
// action, and the thread list shows each thread's latest reply (who and when) as it changes live.
// Screenshots go to test/.artifacts/screenshots/.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe-violations.js';
import { ARTIFACTS, launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import { eventually, roomMessage, startServer, TOKENS, type TestServer } from '../helpers/server.js';

interface Ctx {
  s: TestServer;
  browser: Browser;
  contexts: BrowserContext[];
  dialogs: string[];
  parentId: string;
  loneId: string;
}

const ALPHA = TOKENS.alphaOnly.value;
const SHOTS = path.join(ARTIFACTS, 'screenshots');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `threads-${name}.png`), fullPage: false });

const t = suite<Ctx>('threads in the console');

setupOnce(t, async (ctx) => {
  mkdirSync(SHOTS, { recursive: true });
  ctx.s = await startServer({ config: { rooms: [{ id: 'general', name: 'General', members: ['alpha'] }] } });
  const parent = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'shall we ship 2.0?'), ALPHA);
  assert.is(parent.status, 200, parent.text);
  ctx.parentId = parent.body.message_id;
  const reply = {
    target: { kind: 'thread', room_id: 'general', thread_id: 'ship-2', parent_message_id: ctx.parentId },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: 'the changelog is ready' }],
  };
  assert.is((await ctx.s.post('/v1/messages', reply, ALPHA)).status, 200);
  const lone = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'who reviews the docs?'), ALPHA);
  ctx.loneId = lone.body.message_id;
  ctx.contexts = [];
  ctx.dialogs = [];
  ctx.browser = await launchBrowser();
});
t.after(async (ctx) => {
  for (const c of ctx.contexts ?? []) await c.close().catch(() => {});
  await ctx.browser?.close().catch(() => {});
  await ctx.s?.dispose();
});

async function signIn(ctx: Ctx): Promise<Page> {
  const page = await openPage(ctx.browser, ctx.contexts, ctx.dialogs);
  await page.goto(`${ctx.s.url}/console/?access_token=${TOKENS.admin.value}`);
  await page.waitForURL(/\/console\/#\/room\/general$/);
  await page.locator('[data-testid=live-status]', { hasText: /^live$/ }).waitFor();
  await page.locator('[data-testid=message]', { hasText: 'who reviews the docs?' }).waitFor();
  return page;
}

const roomMessageNode = (page: Page, text: string) => page.locator('[data-testid=messages] > [data-testid=message]', { hasText: text });

t('a thread opens beside its room, a person replies in it and the thread list shows the latest reply', async (ctx) => {
  const page = await signIn(ctx);
  const item = page.locator('[data-testid=thread-ship-2]');
  await item.locator('[data-testid=thread-activity]', { hasText: 'alpha' }).waitFor();
  await roomMessageNode(page, 'shall we ship 2.0?').locator('[data-testid=replies]', { hasText: '1 reply' }).waitFor();

  await item.click();
  await page.waitForURL(/#\/room\/general\/t\/ship-2$/);
  const panel = page.locator('[data-testid=thread-panel]');
  await panel.locator('[data-testid=message-text]', { hasText: 'the changelog is ready' }).waitFor();
  assert.match((await panel.locator('[data-testid=thread-title]').textContent()) ?? '', /Thread ship-2 in #general/);
  assert.is(await page.locator('[data-testid=conv-title]').textContent(), '# General', 'the room stays in view');
  assert.ok(await roomMessageNode(page, 'who reviews the docs?').isVisible(), 'and its messages too');
  assert.ok(
    await panel.locator('[data-testid=thread-parent] [data-testid=message-text]', { hasText: 'shall we ship 2.0?' }).isVisible(),
    'the panel shows the message the thread replies to',
  );

  await panel.locator('[data-testid=thread-text]').fill('ship it on friday');
  await panel.locator('[data-testid=thread-text]').press('Enter');
  await panel.locator('[data-testid=message-text]', { hasText: 'ship it on friday' }).waitFor();
  assert.is(await panel.locator('[data-testid=thread-text]').inputValue(), '');
  const h = await ctx.s.get('/v1/threads/ship-2/messages', TOKENS.observer.value);
  assert.equal(
    h.body.messages.map((m: { parts: { text: string }[] }) => m.parts[0]!.text),
    ['the changelog is ready', 'ship it on friday'],
  );
  assert.is(h.body.messages[1].from.type, 'human');
  await item.locator('[data-testid=thread-activity]', { hasText: 'Console' }).waitFor();
  assert.is(await item.locator('.count').textContent(), ' 2');
  assert.is(await roomMessageNode(page, 'ship it on friday').count(), 0, 'a thread reply does not land in the room');

  // A reply from elsewhere arrives live in the panel and moves the thread's latest activity.
  const other = {
    target: { kind: 'thread', room_id: 'general', thread_id: 'ship-2' },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: 'friday works' }],
  };
  assert.is((await ctx.s.post('/v1/messages', other, ALPHA)).status, 200);
  await panel.locator('[data-testid=message-text]', { hasText: 'friday works' }).waitFor();
  await item.locator('[data-testid=thread-activity]', { hasText: 'alpha' }).waitFor();
  assert.is(await item.locator('[data-testid=unread]').count(), 0, 'a reply read in the panel is not unread');
  await shot(page, 'panel');
  // The panel's own parts pass axe-core (the page's colours are checked with the whole layout).
  const mine = (await seriousViolations(page)).filter((v) => /thread|replies|day-separator|actions|mention|code-copy/.test(v));
  assert.equal(mine, [], 'no serious accessibility violation in the thread panel');

  await page.setViewportSize({ width: 390, height: 800 });
  await shot(page, 'panel-390');
  await page.setViewportSize({ width: 1280, height: 800 });
  // The thread's address opens the same view in a fresh page, parent included.
  const fresh = await openPage(ctx.browser, ctx.contexts, ctx.dialogs);
  await fresh.goto(`${ctx.s.url}/console/?access_token=${TOKENS.admin.value}`);
  await fresh.waitForURL(/#\/room\/general$/);
  await fresh.goto(`${ctx.s.url}/console/#/room/general/t/ship-2`);
  await fresh.reload();
  const again = fresh.locator('[data-testid=thread-panel]');
  await again.locator('[data-testid=message-text]', { hasText: 'friday works' }).waitFor();
  await again.locator('[data-testid=thread-parent] [data-testid=message-text]', { hasText: 'shall we ship 2.0?' }).waitFor();

  await panel.locator('[data-testid=thread-close]').click();
  await page.waitForURL(/#\/room\/general$/);
  assert.ok(await panel.isHidden());
});

t('a person starts a thread from any message with its "Reply in thread" action', async (ctx) => {
  const page = await signIn(ctx);
  const msg = roomMessageNode(page, 'who reviews the docs?');
  await msg.hover();
  const action = msg.locator('[data-testid=action-reply]');
  assert.is(
    await action.evaluate((n) => n.ownerDocument.defaultView!.getComputedStyle(n.parentElement!).opacity),
    '1',
    'the actions show on hover',
  );
  await action.click();
  await page.waitForURL(new RegExp(`#/room/general/reply/${ctx.loneId}$`));
  const panel = page.locator('[data-testid=thread-panel]');
  await panel.locator('[data-testid=thread-new-hint]').waitFor();
  assert.match((await panel.locator('[data-testid=thread-title]').textContent()) ?? '', /New thread in #general/);
  await shot(page, 'new');

  await panel.locator('[data-testid=thread-text]').fill('I can, after lunch');
  await panel.locator('[data-testid=thread-send]').click();
  await panel.locator('[data-testid=message-text]', { hasText: 'I can, after lunch' }).waitFor();
  const threads = await eventually(async () => {
    const r = await ctx.s.get('/v1/rooms/general/threads', TOKENS.observer.value);
    const found = r.body.threads.find((x: { parent_message_id?: string }) => x.parent_message_id === ctx.loneId);
    assert.ok(found, 'the new thread has the message as its parent');
    return found;
  });
  assert.is(threads.message_count, 1);
  await page.waitForURL(new RegExp(`#/room/general/t/${threads.id}$`));
  await page.locator(`[data-testid=thread-${threads.id}]`).waitFor();
  await msg.locator('[data-testid=replies]', { hasText: '1 reply' }).waitFor();

  // The same action on a message that has a thread opens that thread instead of a new one.
  await page.goto(`${ctx.s.url}/console/#/room/general`);
  const parent = roomMessageNode(page, 'shall we ship 2.0?');
  await parent.hover();
  await parent.locator('[data-testid=action-reply]').click();
  await panel.locator('[data-testid=message-text]', { hasText: 'the changelog is ready' }).waitFor();
  assert.match((await panel.locator('[data-testid=thread-title]').textContent()) ?? '', /Thread ship-2/);
});

t.run();
