// The console as people use it every day (#29 parts 4-7), in a real browser: unread counts kept in
// the store that clear on view and follow the person across a reload and a second browser, admin
// controls only for admins, the layout at 390 px, an axe-core check of the main views, and what a
// signed-out visitor sees. Screenshots of each view go to test/.artifacts/screenshots/ for review.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe-violations.js';
import { launchBrowser, openPage, type PageOptions, setupOnce } from '../helpers/browser.js';
import { eventually, ROOT, roomMessage, TOKENS } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

const SHOTS = path.join(ROOT, 'test/.artifacts/screenshots');
const OBSERVER: string = TOKENS.observer.value;
const ADMIN: string = TOKENS.admin.value;
const ALPHA: string = TOKENS.alphaOnly.value;

interface Ctx {
  s: AppServer;
  browser: Browser;
  contexts: BrowserContext[];
}

const t = suite<Ctx>('the console for every day in a browser');

setupOnce(t, async (ctx) => {
  mkdirSync(SHOTS, { recursive: true });
  ctx.contexts = [];
  ctx.s = await startApp({
    config: {
      auth: { public_read: true },
      rooms: [
        { id: 'general', name: 'General', members: ['alpha'] },
        { id: 'ops', name: 'Ops', members: ['alpha', 'beta', 'gamma'] },
        { id: 'secret', name: 'Secret', members: ['alpha'], visibility: 'private' },
      ],
      // A pairing whose peer never answers: the admin sees it and its health.
      pairings: [{ id: 'to-lab', remote_network_id: 'lab', remote_base_url: 'http://127.0.0.1:9', token: 'tok-lab-0123456789' }],
    },
  });
  for (const text of ['good morning', 'the deploy of **v2** is done', 'who looks at the `ops` alerts?']) {
    const r = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', text), ALPHA);
    assert.is(r.status, 200, r.text);
  }
  // A person, a thread and a DM: the axe-core check visits them all.
  const person = { type: 'human', id: 'operator', name: 'Op' };
  const said = await ctx.s.post(
    '/v1/messages',
    { ...roomMessage('general', 'alpha', ''), from: person, parts: [{ kind: 'text', text: 'I do, @alpha' }] },
    ADMIN,
  );
  assert.is(said.status, 200, said.text);
  const reply = {
    target: { kind: 'thread', room_id: 'general', thread_id: 'alerts', parent_message_id: said.body.message_id },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: 'thanks, the runbook is in the wiki' }],
  };
  assert.is((await ctx.s.post('/v1/messages', reply, ALPHA)).status, 200);
  const dm = {
    target: { kind: 'dm', participant_ids: ['alpha', 'console'] },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: 'a word in private' }],
  };
  const sent = await ctx.s.post('/v1/messages', dm, ALPHA);
  assert.is(sent.status, 200, sent.text);
  ctx.browser = await launchBrowser();
});

// Each test's pages close with it: left open, they would render every later event and slow the next page's load.
t.after.each(async (ctx) => {
  for (const c of ctx.contexts?.splice(0) ?? []) await c.close().catch(() => undefined);
});
t.after(async (ctx) => {
  await ctx.browser?.close().catch(() => undefined);
  await ctx.s?.dispose();
});

/** A page as in a fresh browser (its viewport, colour scheme, and the CSP bypassed only to inject axe-core). */
const page = (ctx: Ctx, opts: PageOptions = {}): Promise<Page> => openPage(ctx.browser, ctx.contexts, [], opts);

async function signIn(p: Page, s: AppServer, token: string): Promise<void> {
  await p.goto(`${s.url}/console/?access_token=${token}`);
  await p.waitForURL(/\/console\/#\/room\/general$/);
  await p.locator('[data-testid=message]').first().waitFor();
}

/** Waits until `check` stops throwing (its last failure is the error). */
const until = (check: () => Promise<void>, ms = 5000) =>
  eventually(async () => {
    await check();
    return true;
  }, ms);
const shot = (p: Page, name: string) => p.screenshot({ path: path.join(SHOTS, `${name}.png`) });
const badge = (p: Page, room: string) => p.locator(`[data-testid=room-${room}] [data-testid=unread]`);

async function unreadAtServer(s: AppServer, conv: string): Promise<number> {
  const r = await s.get('/v1/unread', OBSERVER);
  assert.is(r.status, 200, r.text);
  return (r.body.conversations as { conversation: string; unread: number }[]).find((c) => c.conversation === conv)?.unread ?? -1;
}

t('unread counts clear on view and persist across a reload and a second browser of the same person', async (ctx) => {
  const { s } = ctx;
  const a = await page(ctx);
  await signIn(a, s, OBSERVER);
  assert.is(await a.locator('[data-testid=room-ops] [data-testid=member-count]').textContent(), '3 members', 'member counts say so');
  assert.is(await badge(a, 'ops').count(), 0, 'nothing unread before anything new');

  for (const text of ['ops one', 'ops two'])
    assert.is((await s.post('/v1/messages', roomMessage('ops', 'alpha', text), ALPHA)).status, 200);
  await until(async () => assert.is(await badge(a, 'ops').textContent(), '2'), 5000);
  assert.is(await badge(a, 'ops').getAttribute('aria-label'), '2 unread');
  await shot(a, 'desktop-unread');

  await a.reload();
  await a.locator('[data-testid=message]').first().waitFor();
  await until(async () => assert.is(await badge(a, 'ops').textContent(), '2', "the count is the store's, not the page's"), 5000);

  const b = await page(ctx);
  await signIn(b, s, OBSERVER);
  await until(async () => assert.is(await badge(b, 'ops').textContent(), '2', 'and follows the person to another browser'), 5000);

  await a.click('[data-testid=room-ops]');
  await a.locator('[data-testid=message-text]', { hasText: 'ops two' }).waitFor();
  const line = a.locator('[data-testid=new-messages]');
  await line.waitFor();
  const next = a.locator('[data-testid=new-messages] + [data-testid=message]');
  assert.match((await next.textContent()) ?? '', /ops one/, 'the new messages line stands before the first unread one');
  assert.is(await badge(a, 'ops').count(), 0, 'viewing clears the count');
  await until(async () => assert.is(await unreadAtServer(s, 'room:ops'), 0), 5000);

  await a.reload();
  await a.locator('[data-testid=message-text]', { hasText: 'ops two' }).waitFor();
  await a.click('[data-testid=room-general]');
  await a.locator('[data-testid=message-text]', { hasText: 'good morning' }).waitFor();
  assert.is(await badge(a, 'ops').count(), 0, 'still read after a reload');
  await b.reload();
  await b.locator('[data-testid=message]').first().waitFor();
  await a.waitForTimeout(300);
  assert.is(await badge(b, 'ops').count(), 0, 'and read in the other browser too');

  // A message while the person looks elsewhere counts live again.
  assert.is((await s.post('/v1/messages', roomMessage('ops', 'alpha', 'ops three'), ALPHA)).status, 200);
  await until(async () => assert.is(await badge(b, 'ops').textContent(), '1'), 5000);
  await b.keyboard.press('n');
  await b.waitForURL(/#\/room\/ops$/);
  await b.locator('[data-testid=message-text]', { hasText: 'ops three' }).waitFor();
  assert.is(await badge(b, 'ops').count(), 0, 'n opened the next unread conversation');
});

t('an admin creates a room and adds and removes a member; a non-admin sees no controls and the API refuses them', async (ctx) => {
  const { s } = ctx;
  const viewer = await page(ctx);
  await signIn(viewer, s, OBSERVER);
  assert.not.ok(await viewer.locator('[data-testid=admin-tools]').isVisible(), 'no admin tools for an observer');
  assert.not.ok(await viewer.locator('[data-testid=manage-members]').isVisible(), 'no member controls for an observer');
  assert.is((await s.post('/v1/rooms', { id: 'nope' }, OBSERVER)).status, 403, 'and the API refuses them anyway');

  const admin = await page(ctx);
  await signIn(admin, s, ADMIN);
  await admin.locator('[data-testid=admin-tools]').waitFor();
  await admin.click('[data-testid=new-room]');
  await admin.fill('[data-testid=room-id]', 'design');
  await admin.fill('[data-testid=room-name]', 'Design');
  await admin.check('[data-testid=room-private]');
  await shot(admin, 'desktop-admin-new-room');
  await admin.click('[data-testid=room-create]');
  await admin.waitForURL(/#\/room\/design$/);
  await admin.locator('[data-testid=room-design]', { hasText: 'private' }).waitFor();
  const created = await s.get('/v1/rooms/design', ADMIN);
  assert.is(created.body.visibility, 'private');
  assert.is(created.body.name, 'Design');

  await admin.click('[data-testid=manage-members]');
  await admin.fill('[data-testid=member-add]', 'alpha');
  await admin.click('[data-testid=member-add-button]');
  await admin.locator('[data-testid=member-row-alpha]').waitFor();
  await until(async () => assert.equal((await s.get('/v1/rooms/design', ADMIN)).body.members, ['alpha']), 5000);
  await shot(admin, 'desktop-admin-members');
  await admin.click('[data-testid=member-remove-alpha]');
  await admin.locator('[data-testid=member-row-alpha]').waitFor({ state: 'detached' });
  await until(async () => assert.equal((await s.get('/v1/rooms/design', ADMIN)).body.members, []), 5000);
  await admin.keyboard.press('Escape');

  await admin.click('[data-testid=show-pairings]');
  const pairing = admin.locator('[data-testid=pairing-to-lab]');
  await pairing.waitFor();
  assert.match((await pairing.locator('[data-testid=pairing-status]').textContent()) ?? '', /^(error|pending|unknown|degraded)$/);
  assert.match((await pairing.locator('[data-testid=pairing-refused]').textContent()) ?? '', /No refused relays/);
  await shot(admin, 'desktop-admin-pairings');
  await admin.keyboard.press('Escape');
  // Delivery per agent (GET /v1/agents/{id}/delivery): alpha's holder, waiting wakes, last ACK and read.
  await admin.click('[data-testid=show-delivery]');
  const alpha = admin.locator('[data-testid=delivery-alpha]');
  await alpha.waitFor();
  assert.match((await alpha.locator('[data-testid=delivery-attached]').textContent()) ?? '', /^(not )?attached$/);
  assert.match((await alpha.locator('[data-testid=delivery-pending]').textContent()) ?? '', /No wakes waiting\.|not acknowledged/);
  await admin.keyboard.press('Escape');
  // An unrestricted observer reads private rooms too, still without admin controls.
  await viewer.goto(`${s.url}/console/#/room/design`);
  await viewer.locator('[data-testid=conv-title]', { hasText: 'Design' }).waitFor();
  assert.not.ok(await viewer.locator('[data-testid=manage-members]').isVisible(), 'no member controls on the new room either');
});

t('at 390 px the page does not scroll sideways, the sidebar is a drawer, and the shortcuts work', async (ctx) => {
  const p = await page(ctx, { width: 390, height: 844 });
  await signIn(p, ctx.s, OBSERVER);
  const noSideScroll = async (where: string) => {
    const [sw, iw] = (await p.evaluate('[document.scrollingElement.scrollWidth, window.innerWidth]')) as [number, number];
    assert.ok(sw <= iw, `${where}: scrollWidth ${sw} <= innerWidth ${iw}`);
  };
  await noSideScroll('the conversation');
  assert.not.ok(await p.locator('#side').isVisible(), 'the sidebar starts closed on a phone');
  assert.not.ok(await p.locator('#artifacts-panel').isVisible(), 'the empty artifacts panel starts closed');
  await shot(p, 'mobile-conversation');
  await p.click('[data-testid=toggle-side]');
  await p.locator('#side').waitFor();
  assert.is(await p.locator('[data-testid=toggle-side]').getAttribute('aria-expanded'), 'true');
  await noSideScroll('the drawer open');
  await shot(p, 'mobile-drawer');
  await p.click('[data-testid=room-ops]');
  await p.waitForURL(/#\/room\/ops$/);
  await p.locator('#side').waitFor({ state: 'hidden' });
  await noSideScroll('another room');

  await p.keyboard.press('?');
  await p.locator('[data-testid=help]').waitFor();
  assert.match((await p.locator('[data-testid=help]').textContent()) ?? '', /Next conversation with unread messages/);
  await shot(p, 'mobile-help');
  await p.keyboard.press('Escape');
  await p.locator('[data-testid=help]').waitFor({ state: 'hidden' });
  await p.keyboard.press('/');
  assert.is(await p.evaluate('document.activeElement?.id'), 'search-q');
});

/** axe-core on the page; in the second scheme only the rules a colour scheme changes (the document is the same). */
async function axeCheck(p: Page, where: string, colorsOnly = false): Promise<void> {
  assert.equal(await seriousViolations(p, { colorsOnly }), [], `${where}: no serious or critical accessibility violations`);
}

t('axe-core finds no serious or critical violations on the main views, light and dark', async (ctx) => {
  // Something to show: a file in #general (the artifacts panel opens) and a new message in #ops.
  const file = {
    target: { kind: 'room', room_id: 'general' },
    from: { type: 'agent', id: 'alpha' },
    parts: [
      { kind: 'text', text: 'the release notes are attached' },
      { kind: 'file', filename: 'notes-v2.pdf', media_type: 'application/pdf', url: 'https://files.example/notes-v2.pdf' },
    ],
  };
  assert.is((await ctx.s.post('/v1/messages', file, ALPHA)).status, 200);
  for (const dark of [false, true]) {
    const scheme = dark ? 'dark' : 'light';
    const p = await page(ctx, { dark });
    await signIn(p, ctx.s, ADMIN);
    if (!dark) assert.is((await ctx.s.post('/v1/messages', roomMessage('ops', 'alpha', 'alerts are quiet'), ALPHA)).status, 200);
    await p.locator('[data-testid=artifact]').waitFor();
    await axeCheck(p, `room (${scheme})`, dark);
    await shot(p, `desktop-room-${scheme}`);
    await p.click('[data-testid=new-room]');
    await axeCheck(p, `new room dialog (${scheme})`, dark);
    await p.keyboard.press('Escape');
    await p.click('[data-testid=help-button]');
    await axeCheck(p, `shortcuts help (${scheme})`, dark);
    await p.keyboard.press('Escape');
    await p.goto(`${ctx.s.url}/console/#/room/general/t/alerts`);
    await p.locator('[data-testid=thread-panel] [data-testid=message-text]', { hasText: 'the runbook' }).waitFor();
    await axeCheck(p, `thread panel (${scheme})`, dark);
    const m = await page(ctx, { dark, width: 390, height: 844 });
    await signIn(m, ctx.s, OBSERVER);
    await m.locator('[data-testid=message-text]', { hasText: 'I do' }).waitFor();
    await axeCheck(m, `phone (${scheme})`, dark);
    await m.click('[data-testid=toggle-side]');
    await m.locator('#side').waitFor();
    await axeCheck(m, `phone, the drawer open (${scheme})`, dark);
    // The main views at 390 px as a person who may write: a thread in the panel, a DM.
    const w = await page(ctx, { dark, width: 390, height: 844 });
    await signIn(w, ctx.s, ADMIN);
    await w.goto(`${ctx.s.url}/console/#/room/general/t/alerts`);
    await w.locator('[data-testid=thread-panel] [data-testid=message-text]', { hasText: 'the runbook' }).waitFor();
    await axeCheck(w, `phone, thread panel (${scheme})`, dark);
    await shot(w, `mobile-thread-${scheme}`);
    const dmId = (await ctx.s.get('/v1/dms', ADMIN)).body.dms[0].id as string;
    await w.goto(`${ctx.s.url}/console/#/dm/${encodeURIComponent(dmId)}`);
    await w.locator('[data-testid=message-text]', { hasText: 'a word in private' }).waitFor();
    await axeCheck(w, `phone, DM (${scheme})`, dark);
    await shot(w, `mobile-dm-${scheme}`);
    const v = await page(ctx, { dark });
    await v.goto(`${ctx.s.url}/console/`);
    await v.locator('[data-testid=message]').first().waitFor();
    await axeCheck(v, `visitor (${scheme})`, dark);
  }
});

t('a visitor reads public rooms and is told how to sign in; a used or expired sign-in link says so on a styled page', async (ctx) => {
  const { s } = ctx;
  const v = await page(ctx);
  await v.goto(`${s.url}/console/`);
  await v.waitForURL(/#\/room\/general$/);
  await v.locator('[data-testid=message-text]', { hasText: 'good morning' }).waitFor();
  const visitor = v.locator('[data-testid=visitor]');
  await visitor.waitFor();
  assert.match((await visitor.textContent()) ?? '', /To sign in, run svc console on the server/);
  assert.is(await v.locator('[data-testid=room-secret]').count(), 0, 'no private room for a visitor');
  assert.is(await v.locator('[data-testid=admin-tools]').isVisible(), false);
  assert.not.ok(await v.locator('[data-testid=composer]').isVisible(), 'no composer for a visitor');
  await v.locator('[data-testid=sign-in] summary').click();
  await v.locator('[data-testid=sign-in-how]').waitFor();
  await shot(v, 'desktop-visitor');

  const code = await s.req('POST', '/console/api/sign-in-codes', { token: ADMIN, body: { ttl_seconds: 60 } });
  assert.is(code.status, 201, code.text);
  const used = await page(ctx);
  await used.goto(code.body.url);
  await used.waitForURL(/\/console\/#\/room\/general$/);
  const again = await page(ctx);
  const r = await again.goto(code.body.url);
  assert.is(r?.status(), 401);
  await again.locator('[data-testid=link-expired]').waitFor();
  assert.match((await again.locator('h1').textContent()) ?? '', /expired or used/);
  const styled = await again.evaluate("getComputedStyle(document.querySelector('main')).borderTopStyle");
  assert.is(styled, 'solid', 'the page has the console stylesheet (its card)');
  assert.match((await again.textContent('body')) ?? '', /run svc console/);
  await axeCheck(again, 'expired link page');
  await shot(again, 'desktop-link-expired');
});

t.run();
