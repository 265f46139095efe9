// Request targets and routes: the server skips URL parsing for plain paths, and the router looks
// routes up by segment count. Both must agree exactly with the straightforward versions.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Router, type Route } from '../../src/http/router.js';
import { parseTarget } from '../../src/http/server.js';

const t = suite('request targets');

t('every target has the pathname WHATWG URL parsing gives it', () => {
  const chars = 'abcXYZ019-._~!$&\'()*+,;=:@/%?#[]|^\\` {}<>"é';
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const cases = [
    '/',
    '/.',
    '/..',
    '/a/.',
    '/a/..',
    '/a/./b',
    '//x/y',
    '/v1/messages',
    '/v1/rooms/a.b',
    '/a./b',
    '/%2e/x',
    '/a?b=c',
    '/a#b',
    '/a\\b',
  ];
  for (let i = 0; i < 50000; i++) {
    let s = '/';
    for (let j = rand(12); j > 0; j--) s += chars[rand(chars.length)];
    cases.push(s);
  }
  for (const target of cases) {
    let url: URL;
    try {
      url = new URL(target, 'http://svc.invalid');
    } catch {
      assert.throws(
        () => parseTarget(target),
        (e: Error & { code?: string }) => e.code === 'bad_request',
        target,
      );
      continue;
    }
    const got = parseTarget(target);
    assert.is(got.pathname, url.pathname, target);
    if (got.url) assert.is(got.url.href, url.href, target);
    else assert.ok(!url.search && !url.hash, target);
  }
});

t('a target that is not a URL is a bad request', () => {
  assert.throws(
    () => parseTarget('http://[::1'),
    (e: Error & { code?: string }) => e.code === 'bad_request',
  );
});

t.run();

const r = suite('the router');

const route = (method: Route['method'], path: string): Route => ({ method, path, handler: () => undefined });

r('finds the first route of the path and method, with decoded parameters', () => {
  const a = route('GET', '/v1/rooms/:room_id');
  const b = route('POST', '/v1/rooms/:room_id/members');
  const c = route('GET', '/v1/rooms/special');
  const router = new Router().add(a, b, c, route('GET', '/v1/rooms'));
  assert.equal(router.match('GET', '/v1/rooms/x%3Ay'), { kind: 'found', route: a, params: { room_id: 'x:y' } });
  // Earlier routes win, as written.
  assert.is((router.match('GET', '/v1/rooms/special') as { route: Route }).route, a);
  assert.equal(router.match('HEAD', '/v1/rooms/x'), { kind: 'found', route: a, params: { room_id: 'x' } });
  assert.equal(router.match('POST', '/v1/rooms/x/members'), { kind: 'found', route: b, params: { room_id: 'x' } });
});

r('says which methods a path allows, and nothing for unknown paths', () => {
  const router = new Router().add(route('GET', '/v1/rooms/:id'), route('DELETE', '/v1/rooms/:id'), route('GET', '/v1/x/:id'));
  assert.equal(router.match('PUT', '/v1/rooms/a'), { kind: 'method', allow: ['GET', 'DELETE'] });
  assert.equal(router.match('GET', '/v1/rooms/a/b'), { kind: 'none' });
  assert.equal(router.match('GET', '/v2/rooms/a'), { kind: 'none' });
  // Empty or undecodable parameters match nothing.
  assert.equal(router.match('GET', '/v1/rooms/'), { kind: 'none' });
  assert.equal(router.match('GET', '/v1/rooms/%E0%A4%A'), { kind: 'none' });
});

r.run();
