// The console's composer in a real browser: mention autocomplete (a listbox driven by the keyboard)
// whose pick then wakes the attached agent, Shift+Enter for a new line and Enter to send, the
// Markdown preview, and a DM started by clicking an agent in the sidebar, which the agent receives.
// Screenshots go to test/.artifacts/screenshots/.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe-violations.js';
import { ARTIFACTS, launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import { attachAs, SseClient } from '../helpers/live.js';
import { roomMessage, TOKENS } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

interface Ctx {
  s: AppServer;
  browser: Browser;
  contexts: BrowserContext[];
  dialogs: string[];
}

const ALPHA = TOKENS.alphaOnly.value;
const SHOTS = path.join(ARTIFACTS, 'screenshots');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `composer-${name}.png`), fullPage: false });
const alphaIdentity = (net: string) => ({
  network_id: net,
  agent: { id: 'alpha' },
  capabilities: { rooms: true, threads: true, dms: true },
});

const t = suite<Ctx>('the console composer');

setupOnce(t, async (ctx) => {
  mkdirSync(SHOTS, { recursive: true });
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', name: 'General', members: ['alpha', 'beta'] }] } });
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

async function signIn(ctx: Ctx): Promise<Page> {
  const page = await openPage(ctx.browser, ctx.contexts, ctx.dialogs);
  await page.goto(`${ctx.s.url}/console/?access_token=${TOKENS.admin.value}`);
  await page.waitForURL(/\/console\/#\/room\/general$/);
  await page.locator('[data-testid=live-status]', { hasText: /^live$/ }).waitFor();
  await page.locator('[data-testid=message]', { hasText: 'hello people' }).waitFor();
  return page;
}

const options = (page: Page) => page.locator('[data-testid=composer] [data-testid=mention-option]');

t('typing @ lists the members, the keyboard picks one, and the sent mention wakes the attached agent', async (ctx) => {
  const sse = await SseClient.open(ctx.s, { token: TOKENS.observer.value });
  const { c: agent } = await attachAs(ctx.s, alphaIdentity(ctx.s.networkId), { token: ALPHA });
  try {
    const page = await signIn(ctx);
    const box = page.locator('[data-testid=composer-text]');
    const list = page.locator('[data-testid=composer] [data-testid=mention-list]');
    assert.is(await list.getAttribute('role'), 'listbox');
    assert.is(await box.getAttribute('aria-controls'), await list.getAttribute('id'));

    await box.click();
    await box.pressSequentially('ping @');
    await options(page).first().waitFor();
    assert.equal(await options(page).evaluateAll((os) => os.map((o) => o.getAttribute('data-id'))), ['alpha', 'beta']);
    assert.is(await options(page).first().getAttribute('role'), 'option');
    assert.is(await options(page).first().getAttribute('aria-selected'), 'true');
    await box.press('ArrowDown');
    assert.is(await options(page).nth(1).getAttribute('aria-selected'), 'true', 'ArrowDown moves to the next one');
    assert.is(await box.getAttribute('aria-activedescendant'), await options(page).nth(1).getAttribute('id'));
    await box.press('Escape');
    assert.ok(await list.isHidden(), 'Escape closes the list');
    assert.is(await box.inputValue(), 'ping @', 'and leaves the text alone');

    await box.pressSequentially('al');
    assert.equal(await options(page).evaluateAll((os) => os.map((o) => o.getAttribute('data-id'))), ['alpha'], '@al narrows it');
    await shot(page, 'autocomplete');
    assert.equal(await seriousViolations(page), [], 'the page with the open suggestion list passes axe-core');
    await box.press('Tab');
    assert.ok(await list.isHidden());
    assert.is(await box.inputValue(), 'ping @alpha ', 'Tab inserts the mention');
    await box.press('Shift+Enter');
    await box.pressSequentially('can you look?');
    assert.is(await box.inputValue(), 'ping @alpha \ncan you look?', 'Shift+Enter is a new line');
    await box.press('Enter');
    const text = 'ping @alpha \ncan you look?';
    await page.locator('[data-testid=message]', { hasText: 'can you look?' }).waitFor();
    assert.is(await box.inputValue(), '', 'Enter sent it');

    const ev = await agent.message(text);
    assert.equal(ev.event.message.mentions, [`svc://${ctx.s.networkId}/agents/alpha`]);
    agent.ack(ev.cursor);
    const wake = await sse.next(
      (f) => f.event === 'agent.wake.delivered' && f.json.agent.message_id === ev.event.message.id,
      5000,
      'the wake of the mention',
    );
    assert.is(wake.json.agent.reason, 'mention');
    assert.is(wake.json.agent.agent_id, 'alpha');
  } finally {
    await agent.close();
    sse.close();
  }
});

t('a mention is what follows an @ at a word start, matched by id or name prefix before substrings', async (ctx) => {
  const page = await signIn(ctx);
  const r = await page.evaluate(`(async () => {
    const { mentionQuery, matchCandidates } = await import('/console/composer.js');
    const list = [{ id: 'beta', name: 'Builder', kind: 'agent' }, { id: 'alpha', name: 'Al', kind: 'agent' }, { id: 'kalb', kind: 'person' }];
    return {
      queries: ['hi @al', '@', 'mail a@b', 'x @al y', '(@be'].map((t) => mentionQuery(t, t.length) ?? null),
      al: matchCandidates(list, 'al').map((c) => c.id),
      bu: matchCandidates(list, 'bu').map((c) => c.id),
      none: matchCandidates(list, 'zz').map((c) => c.id),
    };
  })()`);
  assert.equal(r, {
    queries: [{ start: 3, query: 'al' }, { start: 0, query: '' }, null, null, { start: 1, query: 'be' }],
    al: ['alpha', 'kalb'],
    bu: ['beta'],
    none: [],
  });
});

t('Enter picks the highlighted mention rather than sending, and the preview shows the Markdown', async (ctx) => {
  const page = await signIn(ctx);
  const box = page.locator('[data-testid=composer-text]');
  await box.click();
  await box.pressSequentially('**bold** for @be');
  await options(page).first().waitFor();
  await box.press('Enter');
  assert.is(await box.inputValue(), '**bold** for @beta ', 'Enter picked, nothing was sent');
  await page.locator('[data-testid=composer] [data-testid=preview-toggle]').click();
  const preview = page.locator('[data-testid=composer] [data-testid=composer-preview]');
  assert.is(await preview.locator('strong').textContent(), 'bold');
  assert.is(await page.locator('[data-testid=composer] [data-testid=preview-toggle]').getAttribute('aria-pressed'), 'true');
  assert.ok((await page.locator('[data-testid=composer] [data-testid=format-help]').textContent())?.includes('Shift+Enter'));
  await shot(page, 'preview');
  const h = await ctx.s.get('/v1/rooms/general/messages', TOKENS.observer.value);
  assert.not.ok(h.body.messages.some((m: { parts: { text?: string }[] }) => m.parts[0]?.text?.includes('bold')));
});

t('clicking an agent in the sidebar opens a DM composer; the first message creates the DM and reaches the agent', async (ctx) => {
  const { c: agent } = await attachAs(ctx.s, alphaIdentity(ctx.s.networkId), { token: ALPHA });
  try {
    const page = await signIn(ctx);
    await page.locator('[data-testid=start-dm-alpha]').click();
    await page.waitForURL(/#\/to\/alpha$/);
    await page.locator('[data-testid=dm-new-hint]').waitFor();
    assert.match((await page.locator('[data-testid=conv-title]').textContent()) ?? '', /DM: alpha/);
    assert.ok(await page.locator('[data-testid=composer]').isVisible(), 'the DM has a composer');
    assert.equal(await seriousViolations(page), [], 'the new DM view passes axe-core');
    await shot(page, 'dm-new');
    await page.locator('[data-testid=composer-text]').fill('a word in private');
    await page.locator('[data-testid=composer-text]').press('Enter');

    const ev = await agent.message('a word in private');
    assert.is(ev.event.message.target.kind, 'dm');
    assert.equal([...ev.event.message.target.participant_ids].sort(), [`${ctx.s.networkId}:alpha`, `${ctx.s.networkId}:console`]);
    const dmId = ev.event.message.target.dm_id;
    await page.waitForURL(new RegExp(`#/dm/${dmId}$`));
    await page.locator('[data-testid=message-text]', { hasText: 'a word in private' }).waitFor();
    await page.locator(`[data-testid=dm-${dmId}]`).waitFor();
    assert.ok(await page.locator('[data-testid=composer]').isVisible(), 'the person writes on in the DM');

    // The agent answers; the person sees it live and clicking the agent again opens the same DM.
    const answer = { target: { kind: 'dm', dm_id: dmId }, from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text: 'got it' }] };
    assert.is((await ctx.s.post('/v1/messages', answer, ALPHA)).status, 200);
    await page.locator('[data-testid=message-text]', { hasText: 'got it' }).waitFor();
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      assert.equal(
        await seriousViolations(page, { colorsOnly: colorScheme === 'dark' }),
        [],
        `the DM view passes axe-core (${colorScheme})`,
      );
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await shot(page, 'dm');
    await page.click('[data-testid=room-general]');
    await page.locator('[data-testid=message]', { hasText: 'hello people' }).waitFor();
    await page.locator('[data-testid=start-dm-alpha]').click();
    await page.waitForURL(new RegExp(`#/dm/${dmId}$`));
    await page.locator('[data-testid=message-text]', { hasText: 'got it' }).waitFor();

    // A person who wrote in the network is listed under People and starts a DM the same way.
    assert.ok(await page.locator('#people-section').isHidden(), 'no people seen yet: no People section');
    const op = {
      target: { kind: 'room', room_id: 'general' },
      from: { type: 'human', id: 'operator', name: 'Op' },
      parts: [{ kind: 'text', text: 'ops here' }],
    };
    assert.is((await ctx.s.post('/v1/messages', op, TOKENS.admin.value)).status, 200);
    await page.click('[data-testid=room-general]');
    const opMsg = page.locator('[data-testid=message]', { hasText: 'ops here' });
    await opMsg.waitFor();
    const person = page.locator('[data-testid=people] [data-testid=person-operator]');
    await person.waitFor();
    assert.match((await person.textContent()) ?? '', /^Op operator$/, 'by name, with the id beside it');
    assert.is(await page.locator('[data-testid=people] [data-testid=person-console]').count(), 0, "never the console's own person");
    assert.is(await page.locator('[data-testid=people] [data-testid=person-alpha]').count(), 0, 'agents are listed as agents');
    assert.equal(await seriousViolations(page), [], 'a room with messages of an agent and people passes axe-core');
    await shot(page, 'people');
    await person.locator('[data-testid=start-dm-operator]').click();
    await page.waitForURL(/#\/to\/operator$/);
    await page.locator('[data-testid=dm-new-hint]').waitFor();
    assert.ok(await page.locator('[data-testid=composer]').isVisible(), 'a DM composer, as for an agent');
    // A person's name on their message does the same.
    await page.click('[data-testid=room-general]');
    await opMsg.locator('[data-testid=message-from]').click();
    await page.waitForURL(/#\/to\/operator$/);
    await page.locator('[data-testid=composer-text]').fill('hi op');
    await page.locator('[data-testid=composer-text]').press('Enter');
    await page.waitForURL(/#\/dm\/[^/]+$/);
    await page.locator('[data-testid=message-text]', { hasText: 'hi op' }).waitFor();
    const dms = await ctx.s.get('/v1/dms', TOKENS.observer.value);
    assert.ok(
      dms.body.dms.some(
        (d: { participant_ids: string[] }) =>
          [...d.participant_ids].sort().join() === `${ctx.s.networkId}:console,${ctx.s.networkId}:operator`,
      ),
      'a DM between the two people',
    );
    // Another browser of the person, which saw no message of theirs yet, knows them from the DM.
    const other = await openPage(ctx.browser, ctx.contexts, ctx.dialogs);
    await other.goto(`${ctx.s.url}/console/?access_token=${TOKENS.admin.value}#/to/alpha`);
    await other.locator('[data-testid=people] [data-testid=start-dm-operator]').waitFor();
  } finally {
    await agent.close();
  }
});

t.run();
