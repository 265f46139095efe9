// Files in the console in a real browser (#41 part 7): an image dropped on the composer is
// uploaded with its progress and a thumbnail drawn in the browser, the message carries a file part,
// and the message shows the image inline from the server and a download link with name and size.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, openPage, setupOnce } from '../helpers/browser.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { roomMessage, TOKENS } from '../helpers/server.js';

interface Ctx {
  s: AppServer;
  browser: Browser;
  contexts: BrowserContext[];
  dialogs: string[];
}

const t = suite<Ctx>('files in the console');

setupOnce(t, async (ctx) => {
  ctx.s = await startApp({ config: { rooms: [{ id: 'general', name: 'General', members: ['alpha'] }] } });
  assert.is((await ctx.s.post('/v1/messages', roomMessage('general', 'alpha', 'hello files'), TOKENS.alphaOnly.value)).status, 200);
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
  await page.locator('[data-testid=message]', { hasText: 'hello files' }).waitFor();
  return page;
}

/** Drops an 8x6 PNG drawn in the page (a real image the browser can decode) on the composer. */
async function dropImage(page: Page, name: string): Promise<void> {
  const dt = await page.evaluateHandle(`(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 8;
    canvas.height = 6;
    const g = canvas.getContext('2d');
    g.fillStyle = '#c03';
    g.fillRect(0, 0, 8, 6);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    const transfer = new DataTransfer();
    transfer.items.add(new File([blob], ${JSON.stringify(name)}, { type: 'image/png' }));
    return transfer;
  })()`);
  await page.locator('[data-testid=composer]').dispatchEvent('dragover', { dataTransfer: dt });
  await page.locator('[data-testid=composer]').dispatchEvent('drop', { dataTransfer: dt });
}

t(
  'an image dropped on the composer is uploaded with a thumbnail, sent as a file part and shown inline with a download link',
  async (ctx) => {
    const page = await signIn(ctx);
    await dropImage(page, 'red-dot.png');
    const item = page.locator('[data-testid=attachment]', { hasText: 'red-dot.png' });
    await item.waitFor();
    // The thumbnail is drawn in the browser before anything comes back from the server.
    await page.locator('[data-testid=attachment-thumb]').waitFor();
    assert.match((await page.locator('[data-testid=attachment-thumb]').getAttribute('src')) ?? '', /^data:image\/png;base64,/);
    // Uploaded: the item knows its file id and the progress bar is gone.
    await page.locator('[data-testid=attachment][data-file-id]:not([data-file-id=""])').waitFor();
    const fileId = await item.getAttribute('data-file-id');
    assert.ok(fileId, 'the upload answered a file id');

    await page.locator('[data-testid=composer-text]').fill('the red dot');
    await page.locator('[data-testid=composer-send]').click();
    const msg = page.locator('[data-testid=message]', { hasText: 'the red dot' });
    await msg.waitFor();
    // The message may come live before the send's answer, after which the composer empties.
    await page.locator('[data-testid=attachment-list]').waitFor({ state: 'hidden' });

    // The preview is the server's image, decoded by the browser at its own size.
    const preview = msg.locator('[data-testid=file-preview]');
    await preview.waitFor();
    const img = "document.querySelector('[data-testid=file-preview]')";
    // Polled with evaluate: waitForFunction's string predicates need eval, which the console's CSP refuses.
    for (let i = 0; !(await page.evaluate(`!!(${img}?.complete && ${img}.naturalWidth > 0)`)); i++) {
      assert.ok(i < 200, 'the preview image loaded');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(await page.evaluate(`[${img}.naturalWidth, ${img}.naturalHeight]`), [8, 6]);
    const link = msg.locator('[data-testid=file-link]');
    assert.is(await link.textContent(), 'red-dot.png');
    assert.is(await link.getAttribute('href'), `${ctx.s.url}/v1/files/${fileId}`);
    assert.match((await msg.locator('[data-testid=file-size]').textContent()) ?? '', /\d+ B/);

    // The stored message carries the file part the console built.
    const history = await ctx.s.get('/v1/rooms/general/messages', TOKENS.admin.value);
    const sent = history.body.messages.find((m: { parts: { kind: string; text?: string }[] }) =>
      m.parts.some((p) => p.text === 'the red dot'),
    );
    const part = sent.parts.find((p: { kind: string }) => p.kind === 'file');
    assert.equal(
      { ...part, size: undefined },
      { kind: 'file', file_id: fileId, name: 'red-dot.png', content_type: 'image/png', size: undefined },
    );
    assert.ok(part.size > 0);
  },
);

t.run();
