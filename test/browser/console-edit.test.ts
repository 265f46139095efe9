// Editing and deleting messages in the console (#40 part 7) in a real browser: the Edit action
// (reached by the keyboard) and the Up arrow in an empty composer, Enter to save and Escape to
// cancel, the "(edited)" mark and its versions dialog, Delete with its confirmation leaving a
// tombstone whose thread stays reachable, who gets the actions (one's own messages; any message for
// an admin session), and a second page that sees every change live. axe-core checks the new controls.

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
/** A person's token: may read and send as a human, not an operator. */
const PERSON = { id: 'person', value: 'tok-person-0123456789', scopes: ['observe', 'write'] };
const SHOTS = path.join(ARTIFACTS, 'screenshots');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `edit-${name}.png`), fullPage: false });
// The test default store (sqlite); SVC_EDIT_STORE=memory runs it on the memory store.
const STORE = process.env.SVC_EDIT_STORE;

const t = suite<Ctx>('the console edits and deletes messages');

setupOnce(t, async (ctx) => {
  mkdirSync(SHOTS, { recursive: true });
  const tokens = (testConfig().auth as { tokens: unknown[] }).tokens;
  ctx.s = await startApp({
    config: {
      rooms: [{ id: 'general', name: 'General', members: ['alpha', 'beta', 'console'] }],
      auth: { tokens: [...tokens, PERSON] },
      ...(STORE ? { store: { backend: STORE } } : {}),
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

async function signIn(ctx: Ctx, token: string = TOKENS.admin.value): Promise<Page> {
  const page = await openPage(ctx.browser, ctx.contexts, ctx.dialogs);
  await page.goto(`${ctx.s.url}/console/?access_token=${token}`);
  await page.waitForURL(/\/console\/#\/room\/general$/);
  await page.locator('[data-testid=live-status]', { hasText: /^live$/ }).waitFor();
  await page.locator('[data-testid=message]', { hasText: 'hello people' }).waitFor();
  return page;
}

const msg = (page: Page, text: string) => page.locator('#messages > [data-testid=message]', { hasText: text });

/** Sends `text` from the composer (Enter) and waits for it in the view and for the send to end. */
async function send(page: Page, text: string): Promise<Locator> {
  const box = page.locator('[data-testid=composer-text]');
  await box.fill(text);
  await box.press('Enter');
  const m = msg(page, text);
  await m.waitFor();
  await sendEnded(page);
  return m;
}

/**
 * Waits until a composer's send has ended (its text cleared, its button enabled again): the live
 * feed may show the message before the send's own answer comes back. `composer` names the test ids
 * (`composer` for the conversation's, `thread` for the panel's).
 */
async function sendEnded(page: Page, composer: 'composer' | 'thread' = 'composer'): Promise<void> {
  await page.waitForFunction((c) => {
    // The page's document, typed by hand: this file is checked without the DOM's types.
    const { document } = globalThis as unknown as { document: { querySelector(s: string): { value?: string; disabled?: boolean } | null } };
    return (
      document.querySelector(`[data-testid=${c}-text]`)?.value === '' &&
      document.querySelector(`[data-testid=${c}-send]`)?.disabled === false
    );
  }, composer);
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

t('edit from the action and from the Up arrow; the (edited) mark opens the versions; a second page follows live', async (ctx) => {
  const page = await signIn(ctx);
  const other = await signIn(ctx);
  const first = await send(page, 'first draft');
  const edit = first.locator('[data-testid=action-edit]');
  assert.is(await edit.getAttribute('aria-label'), 'Edit message');
  assert.is(await first.locator('[data-testid=action-delete]').getAttribute('aria-label'), 'Delete message');

  // The action: the text gives way to an editor holding it; Enter saves.
  await pressAction(first, 'action-edit');
  const editor = first.locator('[data-testid=edit-text]');
  await editor.waitFor();
  assert.ok(await hasFocus(editor), 'the editor has the focus');
  assert.is(await editor.inputValue(), 'first draft');
  assert.ok(await first.locator('[data-testid=message-text]').isHidden(), 'the text is replaced in place');
  assert.equal(await seriousViolations(page), [], 'the open editor passes axe-core');
  await editor.fill('second draft');
  await editor.press('Enter');
  const edited = msg(page, 'second draft');
  await edited.locator('[data-testid=edited-mark]').waitFor();
  assert.is(await edited.locator('[data-testid=message-editor]').count(), 0, 'the editor is gone');
  assert.is(await msg(page, 'first draft').count(), 0);
  assert.ok(await hasFocus(edited.locator('[data-testid=action-edit]')), 'the focus is back on the Edit action');
  // The other page got message.edited over its live feed.
  const seen = msg(other, 'second draft');
  await seen.locator('[data-testid=edited-mark]').waitFor();
  assert.is(await msg(other, 'first draft').count(), 0, 'no stale copy on the other page');

  // The mark opens the versions: the first one, then the current one.
  const mark = edited.locator('[data-testid=edited-mark]');
  assert.is(await mark.textContent(), '(edited)');
  await mark.click();
  const dialog = page.locator('[data-testid=versions-dialog]');
  await dialog.locator('[data-testid=version]').nth(1).waitFor();
  assert.equal(await dialog.locator('[data-testid=version]').evaluateAll((vs) => vs.map((v) => v.getAttribute('data-version'))), [
    '1',
    '2',
  ]);
  assert.match((await dialog.locator('[data-testid=version]').first().textContent()) ?? '', /Version 1.*first draft/);
  assert.match((await dialog.locator('[data-testid=version]').nth(1).textContent()) ?? '', /current.*second draft/);
  assert.equal(await seriousViolations(page), [], 'the versions dialog passes axe-core');
  await shot(page, 'versions');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.ok(await hasFocus(mark), 'closing gives the focus back to the mark');

  // The Up arrow in the empty composer edits the newest of one's own messages; Escape cancels.
  await send(page, 'third thing');
  const box = page.locator('[data-testid=composer-text]');
  await box.focus();
  await box.press('ArrowUp');
  const upEditor = msg(page, 'third thing').locator('[data-testid=edit-text]');
  await upEditor.waitFor();
  assert.ok(await hasFocus(upEditor), 'the Up arrow opens the editor on the last message');
  await upEditor.fill('never saved');
  await upEditor.press('Escape');
  await upEditor.waitFor({ state: 'detached' });
  assert.ok(await hasFocus(box), 'Escape gives the focus back to the composer');
  assert.is(await msg(page, 'third thing').locator('[data-testid=edited-mark]').count(), 0, 'Escape saved nothing');
  await box.press('ArrowUp');
  await upEditor.waitFor();
  await upEditor.fill('third thing, fixed');
  await upEditor.press('Enter');
  await msg(page, 'third thing, fixed').locator('[data-testid=edited-mark]').waitFor();
  assert.ok(await hasFocus(box), 'after saving, the composer has the focus again');
  await msg(other, 'third thing, fixed').locator('[data-testid=edited-mark]').waitFor();
  // With text in the composer the Up arrow is the text area's own.
  await box.fill('draft');
  await box.press('ArrowUp');
  assert.is(await page.locator('[data-testid=edit-text]').count(), 0, 'a composer with text edits nothing');
  await box.fill('');

  // The server kept both edits.
  const r = await ctx.s.get(`/v1/rooms/general/messages?limit=10`, TOKENS.admin.value);
  const texts = (r.body as { messages: { parts: { text?: string }[]; version?: number }[] }).messages.map((m) => [
    m.parts[0]?.text,
    m.version,
  ]);
  assert.ok(texts.some(([x, v]) => x === 'second draft' && v === 2));
  assert.ok(texts.some(([x, v]) => x === 'third thing, fixed' && v === 2));

  // An agent's edit made elsewhere arrives live too.
  const agentMsg = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'agent says hi'), ALPHA);
  const agentId = (agentMsg.body as { message_id: string }).message_id;
  await msg(other, 'agent says hi').waitFor();
  const patched = await ctx.s.req('PATCH', `/v1/messages/${agentId}`, {
    token: ALPHA,
    body: { from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text: 'agent says hello' }] },
  });
  assert.is(patched.status, 200, patched.text);
  await msg(other, 'agent says hello').locator('[data-testid=edited-mark]').waitFor();
  await shot(other, 'edited');
});

t('a send that ends after the focus moved to an editor leaves the focus there', async (ctx) => {
  const page = await signIn(ctx);
  const earlier = await send(page, 'said before the slow one');
  // The next send's answer is held back until the focus has moved.
  let answer!: () => void;
  const held = new Promise<void>((r) => (answer = r));
  await page.route('**/v1/messages', async (route) => {
    if (route.request().method() === 'POST') await held;
    await route.continue();
  });
  const box = page.locator('[data-testid=composer-text]');
  await box.fill('the slow one');
  await box.press('Enter');
  await pressAction(earlier, 'action-edit');
  const editor = earlier.locator('[data-testid=edit-text]');
  await editor.waitFor();
  assert.ok(await hasFocus(editor), 'the editor has the focus while the send is under way');
  answer();
  await msg(page, 'the slow one').waitFor();
  await sendEnded(page);
  assert.ok(await hasFocus(editor), 'the send that ended left the focus in the editor');
  await editor.press('Escape');
  await editor.waitFor({ state: 'detached' });
  await page.unroute('**/v1/messages');
});

t('delete asks first and leaves a tombstone, live on the other page; a deleted parent keeps its thread', async (ctx) => {
  const page = await signIn(ctx);
  const other = await signIn(ctx);
  const mine = await send(page, 'to be deleted');
  await msg(other, 'to be deleted').waitFor();
  const id = await mine.getAttribute('data-id');

  // Cancel keeps the message.
  await pressAction(mine, 'action-delete');
  const confirm = page.locator('[data-testid=delete-dialog]');
  await confirm.waitFor();
  assert.ok(await hasFocus(confirm.locator('[data-testid=delete-cancel]')), 'the dialog opens on Cancel, the safe choice');
  assert.equal(await seriousViolations(page), [], 'the delete confirmation passes axe-core');
  await shot(page, 'confirm-delete');
  await page.keyboard.press('Enter');
  await confirm.waitFor({ state: 'hidden' });
  assert.is(await mine.locator('[data-testid=message-text]').textContent(), 'to be deleted', 'Cancel deletes nothing');

  await pressAction(mine, 'action-delete');
  await confirm.locator('[data-testid=delete-confirm]').click();
  const tomb = page.locator(`#messages > li[data-id="${id}"]`);
  await tomb.locator('[data-testid=tombstone]').waitFor();
  assert.is(await tomb.locator('[data-testid=tombstone]').textContent(), 'message deleted');
  assert.is(await tomb.locator('[data-testid=message-text]').count(), 0, 'its text is gone');
  assert.is(await tomb.locator('[data-testid=action-edit], [data-testid=action-delete]').count(), 0, 'a tombstone has no edit or delete');
  assert.is(await tomb.locator('[data-testid=receipts]').count(), 0, 'nor receipts');
  await other.locator(`#messages > li[data-id="${id}"] [data-testid=tombstone]`).waitFor();
  assert.is(await msg(other, 'to be deleted').count(), 0, 'the other page shows the tombstone live');
  assert.equal(await seriousViolations(page), [], 'a tombstone passes axe-core');

  // An admin session deletes an agent's message; its thread's replies stay reachable.
  const parent = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'parent of a thread'), ALPHA);
  const parentId = (parent.body as { message_id: string }).message_id;
  const reply = (text: string) => ({
    target: { kind: 'thread', room_id: 'general', thread_id: 't-edit', parent_message_id: parentId },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text }],
  });
  assert.is((await ctx.s.post('/v1/messages', reply('first reply'), ALPHA)).status, 200);
  const second = await ctx.s.post('/v1/messages', reply('second reply'), ALPHA);
  const parentItem = msg(page, 'parent of a thread');
  await parentItem.locator('[data-testid=replies]', { hasText: '2 replies' }).waitFor();
  await pressAction(parentItem, 'action-delete');
  await confirm.locator('[data-testid=delete-confirm]').click();
  const parentTomb = page.locator(`#messages > li[data-id="${parentId}"]`);
  await parentTomb.locator('[data-testid=tombstone]').waitFor();
  assert.is(
    await parentTomb
      .locator('[data-testid=replies]')
      .textContent()
      .then((x) => x?.startsWith('2 replies')),
    true,
    'the reply count stays',
  );
  await parentTomb.locator('[data-testid=replies]').click();
  const panel = page.locator('[data-testid=thread-messages]');
  await panel.locator('[data-testid=message]', { hasText: 'second reply' }).waitFor();
  assert.ok(
    await page.locator('[data-testid=thread-parent] [data-testid=tombstone]').isVisible(),
    'the panel shows the parent as a tombstone',
  );

  // A reply deleted elsewhere turns into a tombstone in the open panel.
  const secondId = (second.body as { message_id: string }).message_id;
  const del = await ctx.s.req('DELETE', `/v1/messages/${secondId}`, { token: ALPHA, body: { from: { type: 'agent', id: 'alpha' } } });
  assert.is(del.status, 200, del.text);
  await panel.locator(`li[data-id="${secondId}"] [data-testid=tombstone]`).waitFor();
  assert.is(await panel.locator('[data-testid=message]', { hasText: 'first reply' }).count(), 1, 'the other reply stays');

  // The Up arrow in the panel's empty reply box edits the person's last reply there.
  const replyBox = page.locator('[data-testid=thread-text]');
  await replyBox.fill('my reply');
  await replyBox.press('Enter');
  const myReply = panel.locator('[data-testid=message]', { hasText: 'my reply' });
  await myReply.waitFor();
  await sendEnded(page, 'thread');
  await replyBox.focus();
  await replyBox.press('ArrowUp');
  await myReply.locator('[data-testid=edit-text]').fill('my reply, edited');
  await myReply.locator('[data-testid=edit-text]').press('Enter');
  await panel.locator('[data-testid=message]', { hasText: 'my reply, edited' }).locator('[data-testid=edited-mark]').waitFor();
  assert.ok(await hasFocus(replyBox), 'the reply box has the focus again');
  await shot(page, 'tombstones');
});

t("a person's session may change only its own messages; an admin session any of this network's", async (ctx) => {
  const page = await signIn(ctx, PERSON.value);
  const own = await send(page, 'a person writes');
  assert.is(await own.locator('[data-testid=action-edit]').count(), 1, 'Edit on its own message');
  assert.is(await own.locator('[data-testid=action-delete]').count(), 1, 'Delete on its own message');
  const agents = msg(page, 'hello people');
  assert.is(await agents.locator('[data-testid=action-edit], [data-testid=action-delete]').count(), 0, "no actions on an agent's message");
  // Its edit goes through as the person it sends as.
  await pressAction(own, 'action-edit');
  await own.locator('[data-testid=edit-text]').fill('a person rewrites');
  await own.locator('[data-testid=edit-text]').press('Enter');
  await msg(page, 'a person rewrites').locator('[data-testid=edited-mark]').waitFor();

  const admin = await signIn(ctx);
  assert.is(await msg(admin, 'hello people').locator('[data-testid=action-edit]').count(), 1, "an admin may edit an agent's message");
  assert.equal(ctx.dialogs, [], 'no browser dialog was used');
});

t.run();
