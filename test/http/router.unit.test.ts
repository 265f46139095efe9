// The router remembers its answers for paths without parameters: the same answer as a scan, on
// every request, each with its own params, and forgotten when routes are added.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Router, type Route } from '../../src/http/router.js';

const route = (method: Route['method'], path: string): Route => ({ method, path, handler: () => ({}) });

test('a fixed path is answered by the route a scan finds first, every time, each request with its own params', () => {
  const byId = route('GET', '/v1/rooms/:id');
  const search = route('GET', '/v1/rooms/search');
  const list = route('GET', '/v1/rooms');
  const router = new Router().add(byId, search, list);
  for (let i = 0; i < 3; i++) {
    const m = router.match('GET', '/v1/rooms/search');
    assert.ok(m.kind === 'found' && m.route === byId);
    assert.equal(m.kind === 'found' && m.params, { id: 'search' });
    if (m.kind === 'found') m.params.id = 'changed by a handler';
  }
  const l = router.match('HEAD', '/v1/rooms');
  assert.ok(l.kind === 'found' && l.route === list);
  assert.equal(router.match('POST', '/v1/rooms'), { kind: 'method', allow: ['GET'] });
  assert.equal(router.match('GET', '/v1/nope'), { kind: 'none' });
});

test('a route added later answers for a fixed path a remembered answer refused', () => {
  const router = new Router().add(route('GET', '/v1/messages'));
  assert.equal(router.match('POST', '/v1/messages'), { kind: 'method', allow: ['GET'] });
  const post = route('POST', '/v1/messages');
  router.add(post);
  const m = router.match('POST', '/v1/messages');
  assert.ok(m.kind === 'found' && m.route === post);
});

test.run();
