// The console in a real browser (Debian's Chromium driven by playwright-core): sign in through the
// bootstrap link, read history, page back, see messages arrive live, send from the composer, and
// prove that message content is text that runs nothing. Screenshots go to test/.artifacts/.
// No browser is a failure, not a skip: CI installs chromium (.ci/run).

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS, launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import WebSocket from 'ws';
import { roomMessage, TOKENS } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

const XSS = `<img src=x onerror="window.__xss='img';alert('img')"><script>window.__xss='script';alert('script')</script>`;

interface Ctx {
  s: AppServer;
  browser: Browser;
  contexts: BrowserContext[];
  observer: Page;
  dialogs: string[];
}

const newPage = (ctx: Ctx): Promise<Page> => openPage(ctx.browser, ctx.contexts, ctx.dialogs);

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `console-${name}.png`), fullPage: false });
const messageTexts = (page: Page) => page.locator('[data-testid=messages] [data-testid=message-text]').allTextContents();

const t = suite<Ctx>('the console in a browser');

setupOnce(t, async (ctx) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  ctx.contexts = [];
  ctx.dialogs = [];
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', name: 'General', members: ['alpha'] }] } });
  for (let i = 1; i <= 60; i++) {
    const r = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', `seed ${i}`), TOKENS.alphaOnly.value);
    assert.is(r.status, 200, r.text);
  }
  ctx.browser = await launchBrowser();
});

t.after(async (ctx) => {
  for (const c of ctx.contexts ?? []) await c.close().catch(() => undefined);
  await ctx.browser?.close().catch(() => undefined);
  await ctx.s?.dispose();
});

t('a person who is not signed in gets the sign-in page', async (ctx) => {
  const page = await newPage(ctx);
  const res = await page.goto(`${ctx.s.url}/console/`);
  assert.is(res?.status(), 401);
  assert.is(await page.locator('h1').textContent(), 'Sign in');
  assert.ok((await page.locator('body').textContent())?.includes('/console/?access_token=<token>'));
  await shot(page, 'sign-in');
});

t('a person signs in through the bootstrap link and sees the room history', async (ctx) => {
  const page = await newPage(ctx);
  ctx.observer = page;
  await page.goto(`${ctx.s.url}/console/?access_token=${TOKENS.observer.value}`);
  await page.waitForURL(/\/console\/#\/room\/general$/);
  assert.not.ok(page.url().includes('access_token'));
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'svc_session');
  assert.ok(session, 'the session cookie is set');
  assert.is(session!.httpOnly, true);
  assert.is(session!.sameSite, 'Strict');
  assert.is(await page.evaluate('document.cookie'), '', 'scripts cannot read the session cookie');

  assert.is(await page.locator('[data-testid=network-name]').textContent(), 'Test Net');
  assert.is(await page.locator('[data-testid=network-id]').textContent(), 'testnet');
  await page.locator('[data-testid=message]').nth(49).waitFor();
  const texts = await messageTexts(page);
  assert.is(texts.length, 50, 'one page of history');
  assert.is(texts[0], 'seed 11');
  assert.is(texts[49], 'seed 60');
  assert.ok(
    await page
      .locator('[data-testid=conv-members]')
      .textContent()
      .then((x) => x?.includes('alpha')),
  );
  assert.ok(await page.locator('[data-testid=composer]').isHidden(), 'an observe-only session has no composer');
  await shot(page, 'history');
});

t('a sign-in link opened from another site signs in too, although the SameSite cookie skips that redirect', async (ctx) => {
  const page = await newPage(ctx);
  const link = `${ctx.s.url}/console/?access_token=${TOKENS.observer.value}`;
  await page.route('http://other.test/**', (r) =>
    r.fulfill({ contentType: 'text/html', body: `<a id="go" href="${link}">open the console</a>` }),
  );
  const statuses: number[] = [];
  page.on('response', (r) => {
    if (new URL(r.url()).pathname === '/console/') statuses.push(r.status());
  });
  await page.goto('http://other.test/');
  await page.click('#go');
  await page.waitForURL(/\/console\/#\/room\/general$/);
  await page.locator('[data-testid=message]').first().waitFor();
  // 303 from the link, 401 for the cross-site redirect without the cookie, then 200 once the sign-in page reloads.
  assert.equal(statuses, [303, 401, 200]);
});

t('older messages load through the cursor pages', async (ctx) => {
  const page = ctx.observer;
  const older = page.locator('[data-testid=load-older]');
  assert.ok(await older.isVisible());
  await older.click();
  await page.locator('[data-testid=message]').nth(59).waitFor();
  const texts = await messageTexts(page);
  assert.is(texts.length, 60);
  assert.is(texts[0], 'seed 1');
  assert.is(texts[10], 'seed 11');
  await older.waitFor({ state: 'hidden' });
  assert.ok(await page.locator('#history-start').isVisible());
  await shot(page, 'load-older');
});

t('a message sent over HTTP appears live without a reload', async (ctx) => {
  const page = ctx.observer;
  await page.locator('[data-testid=live-status]', { hasText: /^live$/ }).waitFor();
  await page.evaluate('window.__marker = 42');
  const r = await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'live hello'), TOKENS.alphaOnly.value);
  assert.is(r.status, 200, r.text);
  await page.locator('[data-testid=message-text]', { hasText: 'live hello' }).waitFor();
  assert.is(await page.evaluate('window.__marker'), 42, 'the page was not reloaded');
  const texts = await messageTexts(page);
  assert.is(texts[texts.length - 1], 'live hello');
  await shot(page, 'live');
});

t('message content with HTML and script renders as text and runs nothing', async (ctx) => {
  const page = ctx.observer;
  const body = {
    ...roomMessage('general', 'alpha', XSS),
    parts: [
      { kind: 'text', text: XSS },
      { kind: 'url', url: "javascript:window.__xss='url'" },
      { kind: 'data', data: { html: '<b onmouseover=alert(1)>x</b>' } },
    ],
  };
  const r = await ctx.s.post('/v1/messages', body, TOKENS.alphaOnly.value);
  assert.is(r.status, 200, r.text);
  const check = async (where: string) => {
    const msg = page.locator('[data-testid=message]', { hasText: '<script>' }).last();
    await msg.waitFor();
    assert.is(await msg.locator('[data-testid=message-text]').textContent(), XSS, `${where}: the text is shown verbatim`);
    assert.is(await page.locator('[data-testid=messages] img').count(), 0, `${where}: no img element was created`);
    assert.is(await page.locator('[data-testid=messages] script').count(), 0, `${where}: no script element was created`);
    assert.is(await page.locator('[data-testid=messages] b').count(), 0, `${where}: no markup from data parts`);
    assert.is(await msg.locator('a[href^="javascript"]').count(), 0, `${where}: no javascript: link`);
    await msg.locator('a', { hasText: 'javascript:' }).click();
    await page.waitForTimeout(300); // let anything that was going to run, run
    assert.is(await page.evaluate('window.__xss'), undefined, `${where}: nothing ran`);
    assert.equal(ctx.dialogs, [], `${where}: no alert`);
  };
  await check('live');
  await shot(page, 'xss-live');
  await page.reload();
  await check('history');
  await shot(page, 'xss-history');
});

t('threads, DMs, artifacts and agent presence show up live', async (ctx) => {
  const page = ctx.observer;
  await page.goto(`${ctx.s.url}/console/#/room/general`);
  await page.locator('[data-testid=live-status]', { hasText: /^live$/ }).waitFor();
  const agent = page.locator('[data-testid=agent-alpha]');
  await agent.waitFor();
  assert.is(await agent.getAttribute('data-presence'), 'offline');

  const ws = new WebSocket(`${ctx.s.url.replace('http', 'ws')}/v1/attach`, {
    headers: { authorization: `Bearer ${TOKENS.alphaOnly.value}` },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      ws.on('error', reject);
      ws.on('message', (raw) => {
        const f = JSON.parse(raw.toString());
        if (f.op === 'HELLO')
          ws.send(
            JSON.stringify({
              op: 'IDENTIFY',
              network_id: ctx.s.networkId,
              agent: { id: 'alpha' },
              capabilities: { rooms: true, threads: true, dms: true, artifacts: true },
            }),
          );
        else if (f.op === 'READY') resolve();
        else if (f.op === 'ERROR') reject(new Error(f.error));
      });
    });
    await page.locator('[data-testid=agent-alpha][data-presence=online]').waitFor();
  } finally {
    ws.close();
  }
  await page.locator('[data-testid=agent-alpha][data-presence=offline]').waitFor();

  const thread = {
    target: { kind: 'thread', room_id: 'general', thread_id: 'topic-1' },
    from: { type: 'agent', id: 'alpha' },
    parts: [
      { kind: 'text', text: 'a thread reply' },
      { kind: 'file', filename: 'report.pdf', media_type: 'application/pdf', url: 'https://files.example/report.pdf' },
    ],
  };
  assert.is((await ctx.s.post('/v1/messages', thread, TOKENS.alphaOnly.value)).status, 200);
  await page.locator('[data-testid=thread-topic-1]').waitFor();
  assert.is(await page.locator('[data-testid=thread-topic-1] .count').textContent(), ' 1', 'the new thread counts its one message');
  assert.is(await page.locator('[data-testid=thread-topic-1] [data-testid=unread]').textContent(), '1', 'and shows it unread');
  await page.click('[data-testid=thread-topic-1]');
  await page.locator('[data-testid=message-text]', { hasText: 'a thread reply' }).waitFor();
  // The thread opens in the side panel beside its room.
  assert.match((await page.locator('[data-testid=thread-title]').textContent()) ?? '', /Thread topic-1 in #general/);
  assert.match((await page.locator('[data-testid=conv-title]').textContent()) ?? '', /# General/);
  const artifact = page.locator('[data-testid=artifact]', { hasText: 'report.pdf' });
  await artifact.waitFor();
  assert.is(await artifact.locator('a').getAttribute('href'), 'https://files.example/report.pdf');

  const dm = {
    target: { kind: 'dm', participant_ids: ['beta'] },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: 'psst' }],
  };
  const sent = await ctx.s.post('/v1/messages', dm, TOKENS.alphaOnly.value);
  assert.is(sent.status, 200, sent.text);
  const dmLink = page.locator('[data-testid^=dm-]', { hasText: 'alpha, beta' });
  await dmLink.waitFor();
  assert.is(await dmLink.locator('.count').textContent(), ' 1');
  await dmLink.click();
  await page.locator('[data-testid=message-text]', { hasText: 'psst' }).waitFor();
  assert.ok(await page.locator('[data-testid=composer]').isHidden());
  await shot(page, 'dm');
  await page.click('[data-testid=room-general]');
  await page.locator('[data-testid=message-text]', { hasText: 'live hello' }).waitFor();
});

t('a person with a write session sends a message from the composer as a human', async (ctx) => {
  const page = await newPage(ctx);
  await page.goto(`${ctx.s.url}/console/?access_token=${TOKENS.admin.value}`);
  await page.waitForURL(/\/console\/#\/room\/general$/);
  await page.locator('[data-testid=live-status]', { hasText: /^live$/ }).waitFor();
  const composer = page.locator('[data-testid=composer]');
  await composer.waitFor();
  await page.fill('[data-testid=composer-text]', 'hello from a person\nsecond line');
  await page.click('[data-testid=composer-send]');
  const mine = page.locator('[data-testid=message]', { hasText: 'hello from a person' });
  await mine.waitFor();
  assert.is(await mine.locator('[data-testid=message-from]').textContent(), 'Console');
  assert.is(await page.inputValue('[data-testid=composer-text]'), '', 'the composer is cleared');
  await shot(page, 'composer');

  const h = await ctx.s.get('/v1/rooms/general/messages?limit=1', TOKENS.observer.value);
  const last = h.body.messages[0];
  assert.equal(last.parts, [{ kind: 'text', text: 'hello from a person\nsecond line' }]);
  assert.is(last.from.type, 'human');
  assert.is(last.from.id, 'console');
  // The observer's page, open all along, gets it over the live feed.
  await ctx.observer.locator('[data-testid=message-text]', { hasText: 'hello from a person' }).waitFor();
});

t.run();
