// Redacting messages in the console (#40 parts 3 and 7) in a real browser: an admin session gets a
// Redact action on every message (a deleted one too, until it is redacted), whose confirmation
// says the content is removed from everything svc keeps and cannot be undone; Cancel keeps the
// message, Redact leaves a "message redacted" tombstone, on this page and live (message.redacted)
// on another open console; a person's session never sees the action. axe-core checks the dialog
// and the tombstone.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe-violations.js';
import { ARTIFACTS, launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import { roomMessage, testConfig, TOKENS } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

interface Ctx {
  s: AppServer;
  browser: Browser;
  contexts: BrowserContext[];
  dialogs: string[];
}

const ALPHA = TOKENS.alphaOnly.value;
const ADMIN = TOKENS.admin.value;
/** A person's token: may read and send as a human, not an operator. */
const PERSON = { id: 'person', value: 'tok-person-0123456789', scopes: ['observe', 'write'] };
const SHOTS = path.join(ARTIFACTS, 'screenshots');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `redact-${name}.png`), fullPage: false });

const t = suite<Ctx>('the console redacts messages');

setupOnce(t, async (ctx) => {
  mkdirSync(SHOTS, { recursive: true });
  const tokens = (testConfig().auth as { tokens: unknown[] }).tokens;
  ctx.s = await startApp({
    config: {
      rooms: [{ id: 'general', name: 'General', members: ['alpha', 'beta', 'console'] }],
      auth: { tokens: [...tokens, PERSON] },
    },
  });
  assert.is((await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'hello people'), ALPHA)).status, 200);
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

async function signIn(ctx: Ctx, token: string = ADMIN): Promise<Page> {
  const page = await openPage(ctx.browser, ctx.contexts, ctx.dialogs);
  await page.goto(`${ctx.s.url}/console/?access_token=${token}`);
  await page.waitForURL(/\/console\/#\/room\/general$/);
  await page.locator('[data-testid=live-status]', { hasText: /^live$/ }).waitFor();
  await page.locator('[data-testid=message]', { hasText: 'hello people' }).waitFor();
  return page;
}

const byId = (page: Page, id: string) => page.locator(`#messages > li[data-id="${id}"]`);

/** An agent's message in general, as the server stored it; its id. */
async function agentSays(s: AppServer, text: string): Promise<string> {
  const r = await s.post('/v1/messages', roomMessage('general', 'alpha', text), ALPHA);
  assert.is(r.status, 200, r.text);
  return (r.body as { message_id: string }).message_id;
}

/** Whether the element of `l` has the keyboard focus. */
const hasFocus = (l: Locator) => l.evaluate((e) => e === e.ownerDocument.activeElement);

/** Presses a message's action from the keyboard: the hover bar shows on focus, Enter presses the button. */
async function pressAction(m: Locator, testid: string): Promise<void> {
  const b = m.locator(`[data-testid=${testid}]`);
  await b.focus();
  assert.ok(await b.isVisible(), `${testid} shows when it has the focus`);
  await b.press('Enter');
}

t('an admin redacts through the confirmation; the tombstone says so here and live on a second console', async (ctx) => {
  const id = await agentSays(ctx.s, 'the api key is sk-console-secret');
  const page = await signIn(ctx);
  const other = await signIn(ctx);
  const mine = byId(page, id);
  await mine.waitFor();
  await byId(other, id).waitFor();
  assert.is(await mine.locator('[data-testid=action-redact]').getAttribute('aria-label'), 'Redact message');

  // The dialog says what a redaction does; Cancel (the focus when it opens) keeps the message.
  await pressAction(mine, 'action-redact');
  const confirm = page.locator('[data-testid=redact-dialog]');
  await confirm.waitFor();
  const said = (await confirm.textContent()) ?? '';
  assert.match(said, /Redact this message\?/);
  assert.match(said, /removed from everything svc keeps/);
  assert.match(said, /cannot be undone/);
  assert.ok(await hasFocus(confirm.locator('[data-testid=redact-cancel]')), 'the dialog opens on Cancel, the safe choice');
  assert.equal(await seriousViolations(page), [], 'the redact confirmation passes axe-core');
  await shot(page, 'confirm');
  await page.keyboard.press('Enter');
  await confirm.waitFor({ state: 'hidden' });
  assert.is(await mine.locator('[data-testid=message-text]').textContent(), 'the api key is sk-console-secret', 'Cancel redacts nothing');
  const kept = await ctx.s.get(`/v1/rooms/general/messages?limit=50`, ADMIN);
  assert.is((kept.body.messages as { id: string; redacted_at?: string }[]).find((m) => m.id === id)?.redacted_at, undefined);

  await pressAction(mine, 'action-redact');
  await confirm.locator('[data-testid=redact-confirm]').click();
  await confirm.waitFor({ state: 'hidden' });
  const tomb = mine.locator('[data-testid=tombstone]');
  await tomb.waitFor();
  assert.is(await tomb.textContent(), 'message redacted');
  assert.is(await mine.locator('[data-testid=message-text]').count(), 0, 'its text is gone');
  assert.is(
    await mine.locator('[data-testid=action-edit], [data-testid=action-delete], [data-testid=action-redact]').count(),
    0,
    'a redacted tombstone has no change actions',
  );
  assert.ok(await hasFocus(mine.locator('[data-testid=permalink]')), 'the focus goes to the message left in its place');
  // The second console got message.redacted over its live feed.
  await byId(other, id).locator('[data-testid=tombstone]', { hasText: 'message redacted' }).waitFor();
  assert.not.match((await other.locator('#messages').textContent()) ?? '', /sk-console-secret/);
  assert.equal(await seriousViolations(page), [], 'a redacted tombstone passes axe-core');
  await shot(other, 'tombstone');

  // The server holds the tombstone.
  const r = await ctx.s.get(`/v1/rooms/general/messages?limit=50`, ADMIN);
  const stored = (r.body.messages as { id: string; parts: unknown[]; redacted_at?: string }[]).find((m) => m.id === id);
  assert.equal(stored?.parts, []);
  assert.type(stored?.redacted_at, 'string');
});

t('a deleted message can still be redacted; its tombstone turns from deleted to redacted, live', async (ctx) => {
  const id = await agentSays(ctx.s, 'oops, a password: hunter2');
  const page = await signIn(ctx);
  const other = await signIn(ctx);
  const del = await ctx.s.req('DELETE', `/v1/messages/${id}`, { token: ALPHA, body: { from: { type: 'agent', id: 'alpha' } } });
  assert.is(del.status, 200, del.text);
  const mine = byId(page, id);
  await mine.locator('[data-testid=tombstone]', { hasText: 'message deleted' }).waitFor();
  await byId(other, id).locator('[data-testid=tombstone]', { hasText: 'message deleted' }).waitFor();
  assert.is(await mine.locator('[data-testid=action-delete]').count(), 0, 'a tombstone is not deleted again');
  await pressAction(mine, 'action-redact');
  await page.locator('[data-testid=redact-confirm]').click();
  await mine.locator('[data-testid=tombstone]', { hasText: 'message redacted' }).waitFor();
  await byId(other, id).locator('[data-testid=tombstone]', { hasText: 'message redacted' }).waitFor();
});

t("a person's session never sees Redact; a redaction made elsewhere reaches it live", async (ctx) => {
  const id = await agentSays(ctx.s, 'another secret: sk-person-view');
  const page = await signIn(ctx, PERSON.value);
  const box = page.locator('[data-testid=composer-text]');
  await box.fill('a person writes');
  await box.press('Enter');
  const own = page.locator('#messages > [data-testid=message]', { hasText: 'a person writes' });
  await own.waitFor();
  assert.is(await own.locator('[data-testid=action-delete]').count(), 1, 'Delete on its own message');
  await byId(page, id).waitFor();
  assert.is(await page.locator('[data-testid=action-redact]').count(), 0, 'no Redact anywhere');
  assert.is(await page.locator('[data-testid=redact-dialog]').count(), 0);
  const r = await ctx.s.req('POST', `/v1/messages/${id}/redact`, { token: ADMIN });
  assert.is(r.status, 200, r.text);
  await byId(page, id).locator('[data-testid=tombstone]', { hasText: 'message redacted' }).waitFor();
  assert.is(await page.locator('[data-testid=action-redact]').count(), 0, 'still none');
  assert.equal(ctx.dialogs, [], 'no browser dialog was used');
});

t.run();
