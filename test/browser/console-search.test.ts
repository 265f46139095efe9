// The console's search box in a real browser (Debian's Chromium driven by playwright-core): results
// with marked words, more results, a result that opens its conversation paged back to the
// message, a thread result, and a matching message whose HTML stays text. Screenshots go to
// test/.artifacts/.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS, launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import { roomMessage, TOKENS } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

const XSS = `<img src=x onerror="window.__xss='img'">needle<script>window.__xss='script'</script>`;

interface Ctx {
  s: AppServer;
  browser: Browser;
  page: Page;
  contexts: BrowserContext[];
  /** Id of the oldest needle message, 120 messages back. */
  oldest: string;
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `console-search-${name}.png`), fullPage: false });
const results = (page: Page) => page.locator('[data-testid=search-result]');

async function searchFor(page: Page, q: string): Promise<void> {
  await page.fill('[data-testid=search-q]', q);
  await page.press('[data-testid=search-q]', 'Enter');
  await page.locator('[data-testid=search-title]', { hasText: q }).waitFor();
  await page.locator('[data-testid=search-title]', { hasText: /^(Messages matching|No messages match)/ }).waitFor();
}

const t = suite<Ctx>('the console search box in a browser');

setupOnce(t, async (ctx) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  ctx.s = await startApp({
    config: {
      rooms: [
        { id: 'general', name: 'General', members: ['alpha'] },
        { id: 'other', name: 'Other', members: ['alpha'] },
      ],
    },
  });
  const post = async (body: object) => {
    const r = await ctx.s.post('/v1/messages', body, TOKENS.alphaOnly.value);
    assert.is(r.status, 200, r.text);
    return r.body.message_id as string;
  };
  ctx.oldest = await post(roomMessage('general', 'alpha', 'the first needle, long ago'));
  for (let i = 1; i <= 120; i++) await post(roomMessage('general', 'alpha', i % 5 === 0 ? `needle number ${i}` : `hay ${i}`));
  await post({
    target: { kind: 'thread', room_id: 'general', thread_id: 'deep-talk' },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: 'a threaded zeppelin reply' }],
  });
  await post(roomMessage('other', 'alpha', XSS));
  ctx.browser = await launchBrowser();
  ctx.contexts = [];
  ctx.page = await openPage(ctx.browser, ctx.contexts, []);
  await ctx.page.goto(`${ctx.s.url}/console/?access_token=${TOKENS.observer.value}`);
  await ctx.page.waitForURL(/\/console\/#\/room\/general$/);
  await ctx.page.locator('[data-testid=message]').first().waitFor();
});

t.after(async (ctx) => {
  for (const c of ctx.contexts ?? []) await c.close().catch(() => undefined);
  await ctx.browser?.close().catch(() => undefined);
  await ctx.s?.dispose();
});

t('a search shows the newest matches first with the words marked, and more on demand', async ({ page }) => {
  await searchFor(page, 'needle');
  assert.ok(
    await page
      .locator('[data-testid=conversation]')
      .isHidden()
      .catch(() => true),
  );
  await results(page).nth(19).waitFor();
  assert.is(await results(page).count(), 20);
  // The newest is the message with HTML in the other room, then the numbered ones.
  assert.is(await results(page).first().locator('[data-testid=search-place]').textContent(), '#Other');
  const second = results(page).nth(1);
  assert.is(await second.locator('[data-testid=search-snippet]').textContent(), 'needle number 120');
  assert.is(await second.locator('mark').textContent(), 'needle');
  assert.is(await second.locator('[data-testid=search-place]').textContent(), '#General');
  await shot(page, 'results');
  await page.click('[data-testid=search-more]');
  await results(page).nth(25).waitFor();
  // 24 numbered needles, the first one, and the one in the other room.
  assert.is(await results(page).count(), 26);
  await page.locator('[data-testid=search-more]').waitFor({ state: 'hidden' });
});

t('picking an old result opens its conversation paged back to the message, marked', async ({ page, oldest }) => {
  const hit = page.locator(`[data-testid=search-result][data-id="${oldest}"]`);
  assert.is(await hit.locator('[data-testid=search-snippet]').textContent(), 'the first needle, long ago');
  await hit.locator('[data-testid=search-open]').click();
  await page.waitForURL(/\/console\/#\/room\/general$/);
  const msg = page.locator(`[data-testid=message][data-id="${oldest}"]`);
  await msg.waitFor();
  assert.ok(await page.locator('[data-testid=search-results]').isHidden());
  assert.match((await msg.getAttribute('class')) ?? '', /\bfound\b/);
  assert.ok(await msg.isVisible());
  // It is in view, not just in the page.
  const box = await msg.boundingBox();
  const history = await page.locator('[data-testid=history]').boundingBox();
  assert.ok(
    box && history && box.y >= history.y - 1 && box.y + box.height <= history.y + history.height + 1,
    'the message is scrolled into view',
  );
  await shot(page, 'opened');
});

t('a thread result opens the thread in the panel beside its room, at the reply', async ({ page }) => {
  await searchFor(page, 'zeppel');
  assert.is(await results(page).count(), 1);
  assert.is(await results(page).first().locator('[data-testid=search-place]').textContent(), 'thread deep-talk in #General');
  await results(page).first().locator('[data-testid=search-open]').click();
  await page.waitForURL(/\/console\/#\/room\/general\/t\/deep-talk\/m\/[^/]+$/);
  await page.locator('[data-testid=thread-panel] [data-testid=message].permalinked', { hasText: 'zeppelin' }).waitFor();
  assert.match((await page.locator('[data-testid=thread-title]').textContent()) ?? '', /Thread deep-talk/);
  assert.match((await page.locator('[data-testid=conv-title]').textContent()) ?? '', /# General/, 'beside its room');
});

t('a search with no match says so; a matching message with HTML stays text', async ({ page }) => {
  await searchFor(page, 'nothingmatchesthis');
  assert.is(await page.locator('[data-testid=search-title]').textContent(), 'No messages match “nothingmatchesthis”');
  assert.is(await results(page).count(), 0);
  await searchFor(page, 'needle script');
  const hit = results(page).first();
  await hit.waitFor();
  assert.ok(((await hit.locator('[data-testid=search-snippet]').textContent()) ?? '').includes('<script>'));
  assert.is(await page.locator('[data-testid=search-list] img').count(), 0);
  assert.is(await page.locator('[data-testid=search-list] script').count(), 0);
  await page.waitForTimeout(200);
  assert.is(await page.evaluate('window.__xss'), undefined);
  await page.click('[data-testid=search-close]');
  await page.locator('[data-testid=search-results]').waitFor({ state: 'hidden' });
  assert.ok(await page.locator('#conversation').isVisible());
});

t.run();
