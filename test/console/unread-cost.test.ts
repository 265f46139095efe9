// What GET /v1/unread reads (issue 38 item 7): for an agent its cost follows its own rooms, DMs
// and read markers, never how many rooms the network holds. The server runs in process on a real
// sqlite store; its store's read methods are counted (each call still goes to the store), so the
// test fails on the read path, not on a clock.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/load.js';
import type { App } from '../../src/feature.js';
import { defaultFeatures } from '../../src/features.js';
import { silentLogger } from '../../src/log.js';
import { roomMessage, TOKENS, type Json } from '../helpers/server.js';

const ADMIN = TOKENS.admin.value;
/** Public rooms the agent never joined nor read. */
const PUBLIC_ROOMS = 300;
/** Every read of rooms, DMs and messages the unread route could make. */
const READS = ['listRooms', 'pageRooms', 'listDms', 'pageDms', 'getRoom', 'getDm', 'listMessages', 'conversationsWith'] as const;

interface Ctx {
  dir: string;
  app: App;
  url: string;
  reads: Map<string, number>;
}

const t = suite<Ctx>('GET /v1/unread reads what the caller is in');

t.before(async (c) => {
  c.dir = mkdtempSync(path.join(tmpdir(), 'svc-unread-cost-'));
  const loaded = parseConfig(
    {
      network: { id: 'home' },
      store: { backend: 'sqlite', path: path.join(c.dir, 'svc.db') },
      server: { listen_addr: '127.0.0.1:0', direct_messages: true },
      auth: {
        mode: 'bearer',
        agent_registration: 'open',
        tokens: [{ ...TOKENS.admin, scopes: [...TOKENS.admin.scopes] }],
      },
      rooms: [
        // newbie joins after its claim: an id svc.yaml names is reserved for the operator to register.
        { id: 'mine', members: [] },
        { id: 'theirs', members: ['other'], visibility: 'private' },
        ...Array.from({ length: PUBLIC_ROOMS }, (_, i) => ({ id: `pub-${i}`, members: [] })),
      ],
    },
    { baseDir: c.dir, env: {} },
  );
  c.app = await createApp(loaded, { log: silentLogger, features: defaultFeatures });
  const { port } = await c.app.listen();
  c.url = `http://127.0.0.1:${port}`;
  // Count the store's reads: each call is counted and passed on to the real store.
  c.reads = new Map();
  const store = c.app.ctx.store as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of READS) {
    const real = store[name]!.bind(store);
    store[name] = (...a: unknown[]) => {
      c.reads.set(name, (c.reads.get(name) ?? 0) + 1);
      return real(...a);
    };
  }
});

t.after(async (c) => {
  await c.app?.close();
  rmSync(c.dir, { recursive: true, force: true });
});

async function call(c: Ctx, method: string, p: string, token: string | undefined, body?: Json): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${c.url}${p}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, body: await r.json() };
}

async function say(c: Ctx, room: string, text: string): Promise<string> {
  const r = await call(c, 'POST', '/v1/messages', ADMIN, roomMessage(room, 'ops', text));
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.message_id as string;
}

/** GET /v1/unread with the reads it made. */
async function unread(c: Ctx, token: string): Promise<{ counts: Record<string, number>; reads: Record<string, number> }> {
  c.reads.clear();
  const r = await call(c, 'GET', '/v1/unread', token);
  assert.is(r.status, 200, JSON.stringify(r.body));
  const counts = Object.fromEntries(
    (r.body.conversations as { conversation: string; unread: number }[]).map((x) => [x.conversation, x.unread]),
  );
  return { counts, reads: Object.fromEntries(c.reads) };
}

t('a self-registered agent counts its room, its DM and the public room it read: one read each, none per network room', async (c) => {
  const reg = await call(c, 'POST', '/v1/agents/register', undefined, { requested_agent_id: 'newbie' });
  assert.is(reg.status, 200, JSON.stringify(reg.body));
  const token = reg.body.agent_token as string;
  const joined = await call(c, 'PATCH', '/v1/rooms/mine/members', ADMIN, { add: ['newbie'] });
  assert.is(joined.status, 200, JSON.stringify(joined.body));

  // In no conversation with a message yet: its markers start; nothing in the network is read.
  const first = await unread(c, token);
  assert.equal(first.counts, { 'room:mine': 0 });
  assert.equal(first.reads, { conversationsWith: 1, listMessages: 1 });

  // A public room it reads without joining, a DM to it, news in its room, a private room's news.
  const read = await say(c, 'pub-7', 'read this');
  const marked = await call(c, 'POST', '/v1/unread', token, { message_id: read });
  assert.is(marked.status, 200, JSON.stringify(marked.body));
  await say(c, 'pub-7', 'and this');
  await say(c, 'mine', 'one');
  await say(c, 'mine', 'two');
  await say(c, 'theirs', 'not for newbie');
  for (let i = 0; i < 5; i++) await say(c, `pub-${i}`, 'elsewhere');
  const dm = await call(c, 'POST', '/v1/messages', ADMIN, {
    target: { kind: 'dm', participant_ids: ['ops', 'newbie'] },
    from: { type: 'agent', id: 'ops' },
    parts: [{ kind: 'text', text: 'psst' }],
  });
  assert.is(dm.status, 200, JSON.stringify(dm.body));

  const now = await unread(c, token);
  const dmKey = Object.keys(now.counts).find((k) => k.startsWith('dm:'));
  assert.ok(dmKey, JSON.stringify(now.counts));
  assert.equal(now.counts, { 'room:mine': 2, 'room:pub-7': 1, [dmKey!]: 1 });
  // One member read, one room read for the marker, one message page per conversation counted:
  // no listing of the network's rooms or DMs.
  assert.equal(now.reads, { conversationsWith: 1, getRoom: 1, listMessages: 3 });
});

t('an operator who sees the whole network still counts every room', async (c) => {
  const op = await unread(c, ADMIN);
  assert.is(Object.keys(op.counts).filter((k) => k.startsWith('room:')).length, PUBLIC_ROOMS + 2);
  assert.is(op.reads.listRooms, 1);
});

t.run();
