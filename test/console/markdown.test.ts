// The console's Markdown renderer over HTTP: markdown-it's browser bundle is served from the
// installed package as a same-origin script under the console's CSP, and the shell loads it before
// the app. (What it renders is checked in a browser: test/browser/console-markdown.test.ts.)

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadAsset, VENDOR_FILES } from '../../src/console/assets.js';
import { type AppServer, startApp } from '../helpers/app.js';

const require = createRequire(import.meta.url);
const BUNDLE = readFileSync(require.resolve('markdown-it/dist/markdown-it.min.js'));

const t = suite<{ s?: AppServer }>('the console Markdown bundle');

t.after(async (ctx) => ctx.s?.dispose());

t('the bundle is the installed markdown-it browser build, served as a same-origin script with the console headers', async (ctx) => {
  ctx.s = await startApp({ config: { auth: { public_read: true } } });
  const r = await fetch(`${ctx.s.url}/console/markdown-it.min.js`);
  assert.is(r.status, 200);
  assert.is(r.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.match(r.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  assert.is(r.headers.get('x-content-type-options'), 'nosniff');
  assert.ok(r.headers.get('etag'));
  const body = Buffer.from(await r.arrayBuffer());
  assert.ok(body.equals(BUNDLE), 'byte for byte the package file');
  assert.match(body.toString('utf8', 0, 200).split('\n')[0]!, /^\/\*! markdown-it 14\.\S+ .* @license MIT \*\//);
});

t('the shell loads the bundle as a classic deferred script before the app module', async (ctx) => {
  const r = await fetch(`${ctx.s!.url}/console/`);
  const html = await r.text();
  assert.is(r.status, 200, html);
  const bundle = html.indexOf('<script defer src="/console/markdown-it.min.js"></script>');
  const app = html.indexOf('<script type="module" src="/console/app.js"></script>');
  assert.ok(bundle > 0 && app > bundle, 'the bundle comes first, so the app finds globalThis.markdownit');
});

t('only the listed package files are served from outside the console folder', async () => {
  assert.equal(Object.keys(VENDOR_FILES), ['markdown-it.min.js']);
  assert.ok((await loadAsset('markdown-it.min.js'))?.body.equals(BUNDLE));
  for (const name of ['markdown-it.js', 'index.cjs.js', 'markdown-it.min.js.map', 'package.json']) {
    assert.is(await loadAsset(name), undefined, name);
  }
});

t.run();
