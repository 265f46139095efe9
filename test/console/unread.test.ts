// The unread routes over HTTP (src/console/unread.ts, #29 part 4): counts per room and DM from the
// person's markers in the store, a marker that moves forward only, one person's markers apart from
// another's, nothing for anonymous visitors or hidden messages, and markers that outlive a restart.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { roomMessage, TOKENS, type Json } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

const ALPHA: string = TOKENS.alphaOnly.value;
const OBS: string = TOKENS.observer.value;
const ADMIN: string = TOKENS.admin.value;

const t = suite<{ s: AppServer }>('unread counts over HTTP');

t.before(async (ctx) => {
  ctx.s = await startApp({
    config: {
      auth: { public_read: true },
      rooms: [
        { id: 'general', members: ['alpha'] },
        { id: 'hidden', members: ['beta'], visibility: 'private' },
      ],
    },
  });
});

t.after(async (ctx) => {
  await ctx.s?.dispose();
});

const count = (body: Json, conv: string): number | undefined =>
  (body.conversations as { conversation: string; unread: number }[]).find((c) => c.conversation === conv)?.unread;

async function say(s: AppServer, text: string): Promise<string> {
  const r = await s.post('/v1/messages', roomMessage('general', 'alpha', text), ALPHA);
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
}

t('a person starts with nothing unread, counts what came after, and reads up to a message', async ({ s }) => {
  await say(s, 'before the person arrived');
  const first = await s.get('/v1/unread', OBS);
  assert.is(first.status, 200, first.text);
  assert.is(first.body.person, 'token:observer');
  assert.is(count(first.body, 'room:general'), 0, 'older messages count as read');
  const a = await say(s, 'one');
  const b = await say(s, 'two');
  await say(s, 'three');
  assert.is(count((await s.get('/v1/unread', OBS)).body, 'room:general'), 3);
  const moved = await s.post('/v1/unread', { message_id: b }, OBS);
  assert.is(moved.status, 200, moved.text);
  assert.is(moved.body.conversation, 'room:general');
  assert.is(moved.body.marker.message_id, b);
  assert.is(count((await s.get('/v1/unread', OBS)).body, 'room:general'), 1);
  // Back is refused silently: the marker stays on the newer message.
  assert.is((await s.post('/v1/unread', { message_id: a }, OBS)).body.marker.message_id, b);
  assert.is(count((await s.get('/v1/unread', OBS)).body, 'room:general'), 1);
  assert.is(count((await s.get('/v1/unread', ADMIN)).body, 'room:general'), 0, 'another person has their own markers');
});

t('anonymous visitors have no markers, and a hidden message cannot be marked', async ({ s }) => {
  assert.is((await s.get('/v1/unread')).status, 401);
  assert.is((await s.post('/v1/unread', { message_id: 'x' })).status, 401);
  const hidden = await s.post('/v1/messages', roomMessage('hidden', 'beta', 'not for alpha-only'), ADMIN);
  assert.is(hidden.status, 200, hidden.text);
  const alphaView = await s.get('/v1/unread', ALPHA);
  assert.is(count(alphaView.body, 'room:hidden'), undefined, 'a room the caller may not see is not listed');
  assert.is((await s.post('/v1/unread', { message_id: hidden.body.message_id }, ALPHA)).status, 404);
  assert.is((await s.post('/v1/unread', { message_id: 'no-such-message' }, OBS)).status, 404);
  assert.is((await s.post('/v1/unread', { nope: 1 }, OBS)).status, 400);
});

t('markers outlive a restart of the server', async ({ s }) => {
  const id = await say(s, 'four');
  await s.post('/v1/unread', { message_id: id }, OBS);
  await say(s, 'five');
  await s.restart();
  const r = await s.get('/v1/unread', OBS);
  assert.is(count(r.body, 'room:general'), 1);
});

t.run();
