// The console's pure parts: sessions, cookies, the cross-site check, asset names and presence.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { etagMatches, isSafeAssetName, loadAsset } from '../../src/console/assets.js';
import { clearedSessionCookie, parseCookies, sessionCookie } from '../../src/console/cookies.js';
import { cookieMayAuthenticate } from '../../src/console/csrf.js';
import { escapeHtml, invalidLinkPage, signInPage } from '../../src/console/pages.js';
import { Presence } from '../../src/console/presence.js';
import { SessionStore } from '../../src/console/sessions.js';
import type { StoredEvent } from '../../src/store/types.js';

const s = suite('console sessions');

s('a session maps its random id to the token it was opened with', () => {
  const store = new SessionStore();
  const id = store.open('tok-a');
  assert.match(id, /^[A-Za-z0-9_-]{43}$/);
  assert.is(store.tokenOf(id), 'tok-a');
  assert.is.not(store.open('tok-a'), id);
  assert.is(store.tokenOf('x'.repeat(43)), undefined);
  assert.is(store.tokenOf('not an id'), undefined);
  assert.is(store.tokenOf(undefined), undefined);
});

s('an idle or too old session ends, and use keeps a session alive', () => {
  let t = 0;
  const store = new SessionStore({ idleMs: 100, maxAgeMs: 1000, now: () => t });
  const a = store.open('a');
  t = 90;
  assert.is(store.tokenOf(a), 'a');
  t = 180;
  assert.is(store.tokenOf(a), 'a', 'used at 90, so not idle at 180');
  t = 281;
  assert.is(store.tokenOf(a), undefined);
  const b = store.open('b');
  for (t = 300; t <= 1300; t += 50) store.tokenOf(b);
  assert.is(store.tokenOf(b), undefined, 'ended by its maximum age although active');
});

s('beyond the cap the least recently used session goes first', () => {
  const store = new SessionStore({ max: 2 });
  const a = store.open('a');
  const b = store.open('b');
  store.tokenOf(a);
  const c = store.open('c');
  assert.is(store.size, 2);
  assert.is(store.tokenOf(b), undefined);
  assert.is(store.tokenOf(a), 'a');
  assert.is(store.tokenOf(c), 'c');
  store.close(a);
  assert.is(store.tokenOf(a), undefined);
});

s.run();

const c = suite('console cookies and the cross-site check');

c('the session cookie is HttpOnly, SameSite=Strict, Path=/, and Secure only over https', () => {
  assert.is(sessionCookie('abc', false), 'svc_session=abc; Path=/; HttpOnly; SameSite=Strict');
  assert.is(sessionCookie('abc', true), 'svc_session=abc; Path=/; HttpOnly; SameSite=Strict; Secure');
  assert.is(clearedSessionCookie(false), 'svc_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0');
});

c('cookies parse with the first occurrence of a name winning', () => {
  const m = parseCookies('a=1; svc_session=xyz; b="q"; svc_session=other; junk');
  assert.is(m.get('svc_session'), 'xyz');
  assert.is(m.get('b'), 'q');
  assert.is(parseCookies(undefined).size, 0);
});

c('a cookie authenticates reads always and writes only from this origin', () => {
  assert.ok(cookieMayAuthenticate('GET', { 'sec-fetch-site': 'cross-site' }));
  assert.ok(cookieMayAuthenticate('POST', { host: 'svc.local:8787', origin: 'http://svc.local:8787', 'sec-fetch-site': 'same-origin' }));
  assert.ok(cookieMayAuthenticate('POST', { host: 'svc.local:8787' }));
  assert.not.ok(cookieMayAuthenticate('POST', { host: 'svc.local:8787', origin: 'http://evil.example' }));
  assert.not.ok(cookieMayAuthenticate('POST', { host: 'svc.local:8787', 'sec-fetch-site': 'cross-site' }));
  assert.not.ok(cookieMayAuthenticate('DELETE', { host: 'svc.local:8787', 'sec-fetch-site': 'same-site' }));
  assert.not.ok(cookieMayAuthenticate('POST', { host: 'svc.local', origin: 'null' }));
});

c('pages escape what they show', () => {
  assert.is(escapeHtml(`<a href="x">'&`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;');
  const page = signInPage('http://h:1');
  assert.ok(page.includes('http://h:1/console/?access_token=&lt;token&gt;'));
  assert.ok(page.includes('<script type="module" src="/console/signin.js"></script>'));
  assert.not.match(page, /<script(?![^>]*\bsrc=)/, 'no inline script');
  assert.not.ok(invalidLinkPage('http://h:1').includes('<script'));
});

c.run();

const a = suite('console assets');

a('only plain file names with a served extension are assets', () => {
  for (const ok of ['app.js', 'console.css', 'favicon.svg']) assert.ok(isSafeAssetName(ok), ok);
  for (const bad of ['../x.js', '..', '.hidden.js', 'a/b.js', 'a\\b.js', 'x.ts', 'x', 'a..js', ''])
    assert.not.ok(isSafeAssetName(bad), bad);
});

a('an asset is read from the folder and a symlink out of it is refused', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'svc-assets-'));
  try {
    const dir = path.join(root, 'console');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'app.js'), 'export {};\n');
    writeFileSync(path.join(root, 'secret.js'), 'secret');
    symlinkSync(path.join(root, 'secret.js'), path.join(dir, 'leak.js'));
    const asset = await loadAsset('app.js', dir);
    assert.ok(asset);
    assert.is(asset!.type, 'text/javascript; charset=utf-8');
    assert.is(asset!.body.toString(), 'export {};\n');
    assert.ok(etagMatches(asset!.etag, asset!.etag));
    assert.ok(etagMatches(`W/${asset!.etag}, "other"`, asset!.etag));
    assert.not.ok(etagMatches('"other"', asset!.etag));
    assert.is(await loadAsset('leak.js', dir), undefined);
    assert.is(await loadAsset('../secret.js', dir), undefined);
    assert.is(await loadAsset('missing.js', dir), undefined);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

a('the shipped console has its entry files', async () => {
  for (const name of [
    'index.html',
    'app.js',
    'console.css',
    'signin.js',
    'dom.js',
    'api.js',
    'render.js',
    'live.js',
    'state.js',
    'sidebar.js',
    'conversation.js',
    'events.js',
    'favicon.svg',
  ]) {
    assert.ok(await loadAsset(name), name);
  }
});

a.run();

const p = suite('console presence');

const ev = (seq: number, type: string, agent_id: string): StoredEvent =>
  ({
    seq,
    event: { id: `e${seq}`, type, network_id: 'n', created_at: `2026-01-01T00:00:0${seq}Z`, agent: { agent_id, network_id: 'n' } },
  }) as StoredEvent;

p('an agent is connected while it has an open attachment', () => {
  const pr = new Presence();
  pr.observe(ev(1, 'agent.connected', 'alpha'));
  pr.observe(ev(2, 'agent.connected', 'alpha'));
  pr.observe(ev(3, 'agent.connected', 'beta'));
  pr.observe(ev(4, 'agent.disconnected', 'alpha'));
  assert.equal(
    pr.snapshot(() => true),
    [
      { agent_id: 'alpha', connected: true, since: '2026-01-01T00:00:04Z' },
      { agent_id: 'beta', connected: true, since: '2026-01-01T00:00:03Z' },
    ],
  );
  pr.observe(ev(5, 'agent.disconnected', 'alpha'));
  pr.observe(ev(6, 'agent.removed', 'beta'));
  assert.equal(
    pr.snapshot(() => true),
    [{ agent_id: 'alpha', connected: false, since: '2026-01-01T00:00:05Z' }],
  );
  assert.equal(
    pr.snapshot((id) => id !== 'alpha'),
    [],
  );
});

p.run();
