// A room's retention in the console's header (#40 part 7) in a real browser: the policy in force
// (the room's own fields over the network's) and whose it is, in the words of `svc rooms get`; a DM
// follows the network's. The console's helper is plain JS (it cannot import src/), so it is checked
// here against the CLI's line for every shape of policy. axe-core checks the header.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { retentionLine } from '../../src/cli/commands/rooms/run.js';
import type { RetentionPolicy } from '../../src/protocol/types.js';
import { seriousViolations } from '../helpers/axe-violations.js';
import { ARTIFACTS, launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import { ROOT, roomMessage, TOKENS } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

interface Ctx {
  s: AppServer;
  browser: Browser;
  contexts: BrowserContext[];
  dialogs: string[];
}

const ALPHA = TOKENS.alphaOnly.value;
const SHOTS = path.join(ARTIFACTS, 'screenshots');
const t = suite<Ctx>("the console shows a room's retention");

setupOnce(t, async (ctx) => {
  mkdirSync(SHOTS, { recursive: true });
  ctx.s = await startApp({
    config: {
      server: { retention: { max_age: '30d' } },
      rooms: [
        { id: 'general', name: 'General', members: ['alpha', 'beta'] },
        { id: 'incidents', name: 'Incidents', members: ['alpha'], retention: { max_messages: 500 } },
      ],
    },
  });
  for (const room of ['general', 'incidents']) {
    const r = await ctx.s.post('/v1/messages', roomMessage(room, 'alpha', `hello ${room}`), ALPHA);
    assert.is(r.status, 200, r.text);
  }
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

const retention = (page: Page) => page.locator('[data-testid=conv-retention]');

t('the console helper words a policy as the CLI does', async () => {
  const url = pathToFileURL(path.join(ROOT, 'templates/console/retention.js')).href;
  const console = (await import(url)) as { retentionLine: (r?: RetentionPolicy, n?: RetentionPolicy) => string };
  const shapes: (RetentionPolicy | undefined)[] = [
    undefined,
    { max_age: '30d' },
    { max_messages: 500 },
    { max_age: '12h', max_messages: 0 },
  ];
  for (const room of shapes)
    for (const network of shapes)
      assert.is(console.retentionLine(room, network), retentionLine(room, network), JSON.stringify({ room, network }));
  assert.is(console.retentionLine({ max_messages: 500 }, { max_age: '30d' }), '30d, 500 messages (the room over the network)');
  assert.is(console.retentionLine(undefined, undefined), 'forever');
});

t("each room's header shows the policy in force and whose it is; a DM the network's", async (ctx) => {
  const page = await openPage(ctx.browser, ctx.contexts, ctx.dialogs);
  await page.goto(`${ctx.s.url}/console/?access_token=${TOKENS.admin.value}`);
  await page.waitForURL(/\/console\/#\/room\/general$/);
  await page.locator('[data-testid=message-text]', { hasText: 'hello general' }).waitFor();
  assert.is(await retention(page).textContent(), 'Retention: 30d (the network)');

  await page.click('[data-testid=room-incidents]');
  await page.locator('[data-testid=message-text]', { hasText: 'hello incidents' }).waitFor();
  assert.is(await retention(page).textContent(), 'Retention: 30d, 500 messages (the room over the network)');
  assert.ok(await retention(page).isVisible());
  assert.equal(await seriousViolations(page), [], 'the header passes axe-core');
  await page.screenshot({ path: path.join(SHOTS, 'retention-room.png') });

  const dm = {
    target: { kind: 'dm', participant_ids: ['beta'] },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: 'psst' }],
  };
  assert.is((await ctx.s.post('/v1/messages', dm, ALPHA)).status, 200);
  await page.locator('[data-testid^=dm-]', { hasText: 'alpha, beta' }).click();
  await page.locator('[data-testid=message-text]', { hasText: 'psst' }).waitFor();
  assert.is(await retention(page).textContent(), 'Retention: 30d (the network)');
  assert.equal(ctx.dialogs, []);
});

t.run();
