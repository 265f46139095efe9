// Threads in the console, in a real browser: a thread opens in a side panel beside its room (the
// room stays in view), a person replies in it, starts a new one from a message's "Reply in thread"
// action, and the thread list shows each thread's latest reply (who and when) as it changes live.
// Screenshots go to test/.artifacts/screenshots/.

import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe-violations.js';
import { ARTIFACTS, launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import { eventually, ROOT, roomMessage, TOKENS } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

interface Ctx {
  s: AppServer;
  browser: Browser;
  contexts: BrowserContext[];
  dialogs: string[];
  parentId: string;
  loneId: string;
  /** the replies of thread "long", oldest first */
  longIds: string[];
}

const ALPHA = TOKENS.alphaOnly.value;
const SHOTS = path.join(ARTIFACTS, 'screenshots');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `threads-${name}.png`), fullPage: false });

const t = suite<Ctx>('threads in the console');

setupOnce(t, async (ctx) => {
  mkdirSync(SHOTS, { recursive: true });
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', name: 'General', members: ['alpha'] }] } });
  const parent = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'shall we ship 2.0?'), ALPHA);
  assert.is(parent.status, 200, parent.text);
  ctx.parentId = parent.body.message_id;
  const reply = {
    target: { kind: 'thread', room_id: 'general', thread_id: 'ship-2', parent_message_id: ctx.parentId },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: 'the changelog is ready' }],
  };
  assert.is((await ctx.s.post('/v1/messages', reply, ALPHA)).status, 200);
  // A long thread (120 replies, an agent and a person by turns): more than the panel's first page.
  const long = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'a long discussion'), ALPHA);
  ctx.longIds = [];
  for (let i = 1; i <= 120; i++) {
    const human = i % 2 === 0;
    const r = await ctx.s.post(
      '/v1/messages',
      {
        target: { kind: 'thread', room_id: 'general', thread_id: 'long', ...(i === 1 ? { parent_message_id: long.body.message_id } : {}) },
        from: human ? { type: 'human', id: 'operator', name: 'Op' } : { type: 'agent', id: 'alpha' },
        parts: [{ kind: 'text', text: `long reply ${i}` }],
      },
      human ? TOKENS.admin.value : ALPHA,
    );
    assert.is(r.status, 200, r.text);
    ctx.longIds.push(r.body.message_id);
  }
  const lone = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'who reviews the docs?'), ALPHA);
  ctx.loneId = lone.body.message_id;
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
  // The whole page with the panel open (agent and human senders) passes axe-core, light and dark.
  assert.equal(await seriousViolations(page), [], 'no serious accessibility violation with the thread panel open (light)');
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal(
    await seriousViolations(page, { colorsOnly: true }),
    [],
    'no serious accessibility violation with the thread panel open (dark)',
  );
  await page.emulateMedia({ colorScheme: 'light' });

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
  const listed = page.locator(`[data-testid=thread-${threads.id}]`);
  await listed.waitFor();
  // Its id (a long generated one) stays on one line, its latest activity on the line below.
  await listed.locator('[data-testid=thread-activity]').waitFor();
  const idBox = (await listed.locator('.thread-id').boundingBox())!;
  const actBox = (await listed.locator('[data-testid=thread-activity]').boundingBox())!;
  assert.ok(idBox.height < 24, `the thread id on one line (${idBox.height}px high)`);
  assert.ok(actBox.y >= idBox.y + idBox.height - 1, 'the activity below the id');
  await msg.locator('[data-testid=replies]', { hasText: '1 reply' }).waitFor();

  // The same action on a message that has a thread opens that thread instead of a new one.
  await page.goto(`${ctx.s.url}/console/#/room/general`);
  const parent = roomMessageNode(page, 'shall we ship 2.0?');
  await parent.hover();
  await parent.locator('[data-testid=action-reply]').click();
  await panel.locator('[data-testid=message-text]', { hasText: 'the changelog is ready' }).waitFor();
  assert.match((await panel.locator('[data-testid=thread-title]').textContent()) ?? '', /Thread ship-2/);
});

const panelReply = (page: Page, text: string) =>
  page.locator('[data-testid=thread-messages] > [data-testid=message]').filter({
    has: page.locator('[data-testid=message-text]', { hasText: new RegExp(`^${text}$`) }),
  });

t("a reply's permalink opens its thread in the panel beside the room, at that reply, older pages loaded", async (ctx) => {
  const page = await signIn(ctx);
  await page.goto(`${ctx.s.url}/console/#/room/general/t/long`);
  const panel = page.locator('[data-testid=thread-panel]');
  const latest = panelReply(page, 'long reply 120');
  await latest.waitFor();
  const href = await latest.locator('[data-testid=permalink]').getAttribute('href');
  assert.is(href, `#/room/general/t/long/m/${ctx.longIds[119]}`, 'a reply links to its room with the thread in the panel');

  // A reply older than the latest 100, opened by its link in a fresh page.
  const old = ctx.longIds[4]!;
  const fresh = await openPage(ctx.browser, ctx.contexts, ctx.dialogs);
  await fresh.goto(`${ctx.s.url}/console/?access_token=${TOKENS.admin.value}`);
  await fresh.waitForURL(/#\/room\/general$/);
  await fresh.goto(`${ctx.s.url}/console/#/room/general/t/long/m/${old}`);
  const target = fresh.locator(`[data-testid=thread-panel] [data-testid=message][data-id="${old}"]`);
  await target.waitFor();
  await fresh.locator('[data-testid=thread-panel] .message.permalinked').waitFor();
  assert.is(await target.evaluate((n) => n.classList.contains('permalinked')), true, 'the reply is highlighted');
  const inView = await target.evaluate((n) => {
    const r = n.getBoundingClientRect();
    const h = n.closest('.history')!.getBoundingClientRect();
    return r.top >= h.top - 1 && r.bottom <= h.bottom + 1;
  });
  assert.ok(inView, 'and scrolled into view in the panel');
  assert.is(await fresh.locator('[data-testid=conv-title]').textContent(), '# General', 'beside its room, not on its own page');
  assert.ok(await roomMessageNode(fresh, 'who reviews the docs?').isVisible(), 'the room stays in view');
  assert.is(await fresh.locator('[data-testid=thread-panel] [data-testid=thread-messages] > [data-testid=message]').count(), 120);
  assert.equal(await seriousViolations(fresh), [], 'a highlighted reply of a person passes axe-core (light)');
  await fresh.emulateMedia({ colorScheme: 'dark' });
  assert.equal(await seriousViolations(fresh, { colorsOnly: true }), [], 'and dark');
  await fresh.emulateMedia({ colorScheme: 'light' });
  await shot(fresh, 'permalink');

  // In the first page: the latest 100 replies, and "Load older replies" for the rest.
  const replies = panel.locator('[data-testid=thread-messages] > [data-testid=message]');
  assert.is(await replies.count(), 100, 'the panel opens on the latest 100 replies');
  assert.ok(await panelReply(page, 'long reply 21').isVisible());
  assert.is(await panelReply(page, 'long reply 20').count(), 0);
  const older = panel.locator('[data-testid=thread-load-older]');
  assert.ok(await older.isVisible(), 'Load older replies is offered');
  await older.click();
  await panelReply(page, 'long reply 1').waitFor();
  assert.is(await replies.count(), 120);
  assert.match((await replies.first().textContent()) ?? '', /long reply 1(?!\d)/, 'the older replies come first');
  assert.ok(await older.isHidden(), 'nothing older: the button goes');
});

t(
  "the documentation's screenshot: grouped messages of two senders, a day separator, a thread in the panel, reactions and unread counts",
  async (ctx) => {
    const s = await startApp({
      config: {
        rooms: [
          { id: 'release', name: 'Release', members: ['alpha', 'beta'] },
          { id: 'ops', name: 'Ops', members: ['alpha', 'beta', 'gamma'] },
          { id: 'design', name: 'Design', members: ['beta'] },
        ],
      },
    });
    try {
      const ADMIN = TOKENS.admin.value;
      const dana = { type: 'human', id: 'dana', name: 'Dana' };
      const say = async (
        from: Record<string, string>,
        text: string,
        target: Record<string, string> = { kind: 'room', room_id: 'release' },
      ) => {
        const token = from.type === 'human' || from.id !== 'alpha' ? ADMIN : ALPHA;
        const r = await s.post('/v1/messages', { target, from, parts: [{ kind: 'text', text }] }, token);
        assert.is(r.status, 200, r.text);
        return r.body.message_id as string;
      };
      const alpha = { type: 'agent', id: 'alpha' };
      const beta = { type: 'agent', id: 'beta' };
      await say(alpha, 'Nightly build passed: **312 tests**, no flakes.');
      await say(alpha, 'The release notes draft is in `docs/release-2.0.md`.');
      const ask = await say(dana, 'Great. @alpha can you tag `v2.0.0-rc1`?');
      await say(dana, 'And @beta, the changelog please.');
      const ok = await say(beta, 'On it: the changelog lands in ten minutes.');
      const react = async (id: string, emoji: string, from: Record<string, string>) => {
        const r = await s.req('PUT', `/v1/messages/${id}/reactions/${encodeURIComponent(emoji)}`, {
          token: from.id === 'alpha' ? ALPHA : ADMIN,
          body: { from },
        });
        assert.is(r.status, 200, r.text);
      };
      // Emoji the fonts of a bare test machine draw (DejaVu), so the screenshot shows them.
      await react(ok, '✔', dana);
      await react(ok, '♥', alpha);
      await react(ask, '☺', alpha);
      const thread = { kind: 'thread', room_id: 'release', thread_id: 'rc1', parent_message_id: ask };
      await say(alpha, 'Tagged `v2.0.0-rc1`; the build is running.', thread);
      await say(dana, 'Thanks! We ship on Friday if it stays green.', { kind: 'thread', room_id: 'release', thread_id: 'rc1' });

      const page = await openPage(ctx.browser, ctx.contexts, ctx.dialogs);
      await page.goto(`${s.url}/console/?access_token=${ADMIN}`);
      await page.waitForURL(/#\/room\/release$/);
      await page.locator('[data-testid=live-status]', { hasText: /^live$/ }).waitFor();
      // New messages elsewhere after the person's markers start: unread counts in the sidebar.
      for (const text of ['disk usage on db-2 at 81%', 'rotated the logs, now 64%', 'all quiet again'])
        await say(alpha, text, { kind: 'room', room_id: 'ops' });
      await say(beta, 'new mockups for the settings page', { kind: 'room', room_id: 'design' });
      await page.locator('[data-testid=room-ops] [data-testid=unread]', { hasText: '3' }).waitFor();
      await page.locator('[data-testid=room-design] [data-testid=unread]', { hasText: '1' }).waitFor();

      await page.goto(`${s.url}/console/#/room/release/t/rc1`);
      const panel = page.locator('[data-testid=thread-panel]');
      await panel.locator('[data-testid=message-text]', { hasText: 'We ship on Friday' }).waitFor();
      await page.locator('[data-testid=messages] [data-testid=reaction][data-emoji="♥"]').waitFor();
      await page.locator('[data-testid=messages] > [data-testid=day-separator]').waitFor();
      assert.ok(await page.locator('[data-testid=messages] > .message.grouped').first().isVisible(), 'grouped messages in view');
      assert.equal(await seriousViolations(page), [], 'the view of the screenshot passes axe-core');
      await page.mouse.move(0, 0);
      const file = path.join(SHOTS, 'docs-console.png');
      await page.screenshot({ path: file });
      // The docs' image is this screenshot, refreshed on purpose only (it is committed).
      if (process.env.SVC_DOCS_SCREENSHOT === '1') copyFileSync(file, path.join(ROOT, 'docs/images/console.png'));
      await page.setViewportSize({ width: 390, height: 844 });
      await shot(page, 'docs-view-390');
    } finally {
      await s.dispose();
    }
  },
);

t.run();
