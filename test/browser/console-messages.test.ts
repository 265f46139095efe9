// How the console lays out messages, in a real browser: day separators, consecutive messages of one
// sender grouped, relative times with the absolute one in the title, hover actions (copy link,
// react, receipts), a permalink that opens the conversation at its message (older pages loaded as
// needed) and highlights it, and code blocks with a copy button. Screenshots go to
// test/.artifacts/screenshots/.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe-violations.js';
import { ARTIFACTS, launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import { roomMessage, TOKENS } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

interface Ctx {
  s: AppServer;
  browser: Browser;
  contexts: BrowserContext[];
  dialogs: string[];
  early: string;
  /** a message of a person (not the console's) */
  human: string;
}

const ALPHA = TOKENS.alphaOnly.value;
const ADMIN = TOKENS.admin.value;
const SHOTS = path.join(ARTIFACTS, 'screenshots');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `messages-${name}.png`), fullPage: false });
const CODE = 'npm run build\nnode dist/index.js';

const t = suite<Ctx>('messages in the console');

setupOnce(t, async (ctx) => {
  mkdirSync(SHOTS, { recursive: true });
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', name: 'General', members: ['alpha', 'beta'] }] } });
  const say = async (from: string, text: string, token: string = ALPHA) => {
    const r = await ctx.s.post('/v1/messages', roomMessage('general', from, text), token);
    assert.is(r.status, 200, r.text);
    return r.body.message_id as string;
  };
  ctx.early = await say('alpha', 'the very first plan');
  for (let i = 1; i <= 70; i++) await say('beta', `filler ${i}`, ADMIN);
  await say('alpha', 'one');
  await say('alpha', 'two');
  await say('alpha', 'three');
  await say('beta', 'four', ADMIN);
  await say('alpha', `to run it:\n\n\`\`\`sh\n${CODE}\n\`\`\``);
  const person = {
    target: { kind: 'room', room_id: 'general' },
    from: { type: 'human', id: 'operator', name: 'Op' },
    parts: [{ kind: 'text', text: 'thanks @alpha, on it' }],
  };
  const r = await ctx.s.post('/v1/messages', person, ADMIN);
  assert.is(r.status, 200, r.text);
  ctx.human = r.body.message_id;
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

async function signIn(ctx: Ctx, hash = ''): Promise<Page> {
  const page = await openPage(ctx.browser, ctx.contexts, ctx.dialogs);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ctx.s.url });
  await page.goto(`${ctx.s.url}/console/?access_token=${ADMIN}`);
  await page.waitForURL(/\/console\/#\/room\/general$/);
  await page.locator('[data-testid=live-status]', { hasText: /^live$/ }).waitFor();
  if (hash) await page.goto(`${ctx.s.url}/console/${hash}`);
  return page;
}

const msg = (page: Page, text: string) =>
  page
    .locator('[data-testid=messages] > [data-testid=message]')
    .filter({ has: page.locator('[data-testid=message-text]', { hasText: new RegExp(`^${text}$`) }) });
const clipboard = (page: Page) => page.evaluate('navigator.clipboard.readText()') as Promise<string>;

t('consecutive messages of one sender are grouped under a day separator, with relative and absolute times', async (ctx) => {
  const page = await signIn(ctx);
  await msg(page, 'four').waitFor();
  const grouped = async (text: string) => (await msg(page, text).getAttribute('class'))?.split(' ').includes('grouped');
  assert.is(await grouped('one'), false, 'the first of a run shows its sender');
  assert.is(await grouped('two'), true);
  assert.is(await grouped('three'), true);
  assert.is(await grouped('four'), false, 'another sender starts a new group');
  const nameBox = await msg(page, 'two').locator('.meta').boundingBox();
  assert.ok(!nameBox || nameBox.width <= 1, 'a grouped message hides the repeated name (screen readers keep it)');
  assert.ok(((await msg(page, 'one').locator('.meta').boundingBox())?.width ?? 0) > 1);
  const seps = page.locator('[data-testid=messages] > [data-testid=day-separator]');
  assert.is(await seps.count(), 1, 'one day, one separator');
  assert.is(await seps.textContent(), 'Today');
  const time = msg(page, 'one').locator('time');
  assert.is(await time.textContent(), 'just now');
  assert.match((await time.getAttribute('title')) ?? '', String(new Date().getFullYear()));
  await shot(page, 'grouped');
});

t('messages on different days get a separator each, and a run of one sender is not grouped across midnight', async (ctx) => {
  const page = await signIn(ctx);
  // The layout module itself on a list spanning three days (the server stamps messages now).
  const result = await page.evaluate(`(async () => {
    const { layoutMessages } = await import('/console/message-layout.js');
    const ol = document.createElement('ol');
    const at = (d, h, m) => new Date(2025, 0, d, h, m).toISOString();
    for (const [d, h, m, who] of [[10, 9, 0, 'a'], [10, 9, 2, 'a'], [10, 23, 59, 'a'], [11, 0, 1, 'a'], [11, 0, 20, 'a'], [13, 8, 0, 'b']]) {
      const li = document.createElement('li');
      li.dataset.testid = 'message';
      li.setAttribute('data-testid', 'message');
      li.dataset.at = at(d, h, m);
      li.dataset.sender = who;
      ol.append(li);
    }
    layoutMessages(ol);
    layoutMessages(ol);
    return [...ol.children].map((n) => n.dataset.testid === 'day-separator' ? 'sep:' + n.dataset.day : n.classList.contains('grouped') ? 'grouped' : 'head');
  })()`);
  assert.equal(result, ['sep:2025-01-10', 'head', 'grouped', 'head', 'sep:2025-01-11', 'head', 'head', 'sep:2025-01-13', 'head']);
});

t('a permalink opens the conversation at its message, loading older pages, and highlights it', async (ctx) => {
  const page = await signIn(ctx);
  const first = msg(page, 'four');
  await first.hover();
  await first.locator('[data-testid=action-copy-link]').click();
  await page.locator('[data-testid=toast]', { hasText: 'link copied' }).waitFor();
  const link = await clipboard(page);
  assert.ok(link.startsWith(`${ctx.s.url}/console/#/room/general/m/`), link);

  const other = await signIn(ctx, `#/room/general/m/${encodeURIComponent(ctx.early)}`);
  const target = other.locator(`[data-testid=message][data-id="${ctx.early}"]`);
  await target.waitFor();
  await other.locator('.message.permalinked').waitFor();
  assert.is(await target.evaluate((n) => n.classList.contains('permalinked')), true);
  assert.ok(await target.isVisible());
  const inView = await target.evaluate((n) => {
    const r = n.getBoundingClientRect();
    const h = n.closest('[data-testid=history]')!.getBoundingClientRect();
    return r.top >= h.top && r.bottom <= h.bottom;
  });
  assert.ok(inView, 'scrolled into view');
  assert.is(await target.locator('[data-testid=permalink]').getAttribute('href'), `#/room/general/m/${ctx.early}`);
  await shot(other, 'permalink');

  // A person's message, highlighted and hovered (its actions shown), passes axe-core in both themes.
  await other.goto(`${ctx.s.url}/console/#/room/general/m/${encodeURIComponent(ctx.human)}`);
  const person = other.locator(`[data-testid=message][data-id="${ctx.human}"]`);
  await other.locator(`[data-testid=message][data-id="${ctx.human}"].permalinked`).waitFor();
  await person.hover();
  for (const colorScheme of ['light', 'dark'] as const) {
    await other.emulateMedia({ colorScheme });
    assert.equal(
      await seriousViolations(other, { colorsOnly: colorScheme === 'dark' }),
      [],
      `a highlighted message of a person passes axe-core (${colorScheme})`,
    );
  }
  await other.emulateMedia({ colorScheme: 'light' });
});

t('hover actions react and show receipts; a code block has a copy button that copies its code', async (ctx) => {
  const page = await signIn(ctx);
  const code = msg(page, 'to run it:').or(page.locator('[data-testid=messages] > [data-testid=message]', { hasText: 'to run it:' }));
  await code.first().waitFor();
  const block = code.first();
  const copy = block.locator('[data-testid=code-copy]');
  assert.is(await copy.count(), 1);
  assert.is(await copy.getAttribute('aria-label'), 'Copy code');
  await copy.click();
  await page.locator('[data-testid=toast]', { hasText: 'code copied' }).waitFor();
  assert.is(await clipboard(page), CODE);

  await block.hover();
  await block.locator('[data-testid=action-react]').click();
  assert.ok(await block.locator('[data-testid=reaction-picker]').isVisible(), 'React opens the picker');
  await block.locator('[data-testid=reaction-picker] button[data-emoji="🎉"]').click();
  await block.locator('[data-testid=reaction][data-emoji="🎉"]').waitFor();

  await page.locator('[data-testid=composer-text]').fill('a note of mine');
  await page.locator('[data-testid=composer-text]').press('Enter');
  const mine = msg(page, 'a note of mine');
  await mine.waitFor();
  await mine.hover();
  assert.is(await msg(page, 'four').locator('[data-testid=action-receipts]').count(), 0, 'receipts only on one own messages');
  await mine.locator('[data-testid=action-receipts]').click();
  await mine.locator('[data-testid=receipts]').waitFor();
  await shot(page, 'actions');
});

t(
  "the console reads its addresses strictly: rooms, threads in the panel, replies, permalinks (a reply's in the panel) and new DMs",
  async (ctx) => {
    const page = await signIn(ctx);
    const parsed = await page.evaluate(`(async () => {
    const { parseRoute } = await import('/console/routes.js');
    return ['', '#/room/general', '#/room/a%20b/t/t-1', '#/room/general/reply/msg_1', '#/dm/dm_x/m/msg_2',
      '#/thread/t-1/m/msg_3', '#/to/alpha', '#/thread/t-1/t/x', '#/to/alpha/m/x', '#/room/%E0%A4%A', '#/nope/x',
      '#/room/general/t/t-1/m/msg_4', '#/room/general/reply/msg_1/m/x', '#/room/general/m/x/m/y']
      .map((h) => parseRoute(h) ?? String(parseRoute(h)));
  })()`);
    assert.equal(parsed, [
      'undefined',
      { kind: 'room', id: 'general' },
      { kind: 'room', id: 'a b', thread: 't-1' },
      { kind: 'room', id: 'general', reply: 'msg_1' },
      { kind: 'dm', id: 'dm_x', message: 'msg_2' },
      { kind: 'thread', id: 't-1', message: 'msg_3' },
      { kind: 'to', id: 'alpha' },
      'null',
      'null',
      'null',
      'null',
      { kind: 'room', id: 'general', thread: 't-1', message: 'msg_4' },
      'null',
      'null',
    ]);
    await page.goto(`${ctx.s.url}/console/#/nope/x`);
    await page.locator('#empty', { hasText: 'does not name a conversation' }).waitFor();
  },
);

t.run();
