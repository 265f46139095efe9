// The attachment client (`svc/client`) against real servers: preflight, delivery, ACK, the cursor
// file, reconnect with backoff after a server restart on the same address, resume by cursor.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  attach as attachClient,
  AttachError,
  type AttachedEvent,
  type AttachOptions,
  type Attachment,
  type AttachStatus,
} from '../../src/client/index.js';
import { freePort } from '../helpers/cli.js';
import { eventually, ROOT, TOKENS } from '../helpers/server.js';
import { type AppServer, startApp } from '../helpers/app.js';

// Every attachment a test opens is closed afterwards, also when the test fails (else the run never exits).
const opened: Attachment[] = [];
const attach = (o: AttachOptions): Attachment => {
  const a = attachClient(o);
  opened.push(a);
  return a;
};
const closeAll = () => Promise.all(opened.splice(0).map((a) => a.close()));

interface Ctx {
  s: AppServer;
  dir: string;
}

const t = suite<Ctx>('the attachment client');

t.before(async (ctx) => {
  const port = await freePort();
  ctx.s = await startApp({
    config: {
      server: { listen_addr: `127.0.0.1:${port}` },
      rooms: [{ id: 'general', name: 'General', members: ['alpha', 'beta'], write_policy: 'members' }],
    },
  });
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-attach-client-'));
});

t.after.each(async () => void (await closeAll()));

t.after(async ({ s, dir }) => {
  await s.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const say = async (s: AppServer, text: string, mentions: string[] = []) => {
  const r = await s.post(
    '/v1/messages',
    { target: { kind: 'room', room_id: 'general' }, from: { type: 'agent', id: 'beta' }, parts: [{ kind: 'text', text }], mentions },
    TOKENS.admin.value,
  );
  assert.is(r.status, 200, r.text);
};
const textOf = (e: AttachedEvent) => e.event.message?.parts[0]?.text;

t('delivers, acknowledges, and resumes across a server restart without loss or repeat', async ({ s, dir }) => {
  const cursorFile = path.join(dir, 'alpha.json');
  const got: AttachedEvent[] = [];
  const statuses: AttachStatus[] = [];
  const a = attach({
    url: s.url,
    token: TOKENS.alphaOnly.value,
    agent: { id: 'alpha', name: 'Alpha' },
    networkId: 'testnet',
    cursorStore: cursorFile,
    ackMode: 'manual',
    reconnect: { minMs: 100, maxMs: 400 },
    onEvent: (e) => void got.push(e),
    onStatus: (st) => statuses.push(st),
  });
  const ready = await a.ready;
  assert.is(ready.agent_id, 'alpha');
  assert.is(ready.resumed, false);
  await a.flush();
  assert.is(JSON.parse(readFileSync(cursorFile, 'utf8')).cursor, ready.cursor, 'READY.cursor is stored at once');

  await say(s, 'one', ['alpha']);
  await eventually(() => got.some((e) => textOf(e) === 'one'), 10_000, 'the first message');
  const one = got.find((e) => textOf(e) === 'one')!;
  assert.is(one.wake, 'mention');
  for (const e of got) e.ack();
  await a.flush();
  assert.is(a.cursor(), got.at(-1)!.cursor);
  assert.is(JSON.parse(readFileSync(cursorFile, 'utf8')).cursor, got.at(-1)!.cursor);

  await say(s, 'two');
  await eventually(() => got.some((e) => textOf(e) === 'two'), 10_000, 'the second message');
  const two = got.find((e) => textOf(e) === 'two')!;
  assert.is(two.wake, undefined, 'room traffic is not a wake');

  await s.restart();
  await eventually(() => statuses.some((st) => st.state === 'ready' && st.info.resumed), 20_000, 'the reconnect');
  assert.ok(
    statuses.some((st) => st.state === 'disconnected'),
    'the drop was reported',
  );
  // "two" was in hand, not acknowledged: the server re-sends it, the client does not hand it out again.
  two.ack();
  await say(s, 'three');
  await eventually(() => got.some((e) => textOf(e) === 'three'), 10_000, 'the message after the restart');
  for (const e of got) e.ack();
  await a.flush();
  const texts = got.map(textOf).filter(Boolean);
  assert.equal(texts, ['one', 'two', 'three']);
  const cursors = got.map((e) => Number(e.cursor));
  assert.equal(
    cursors,
    [...cursors].sort((x, y) => x - y),
    'in cursor order',
  );
  assert.is(new Set(cursors).size, cursors.length, 'each cursor once');
  await a.close();

  // A new process with the same cursor file: resumes after "three"; an unacknowledged event comes again.
  await say(s, 'four');
  const again: AttachedEvent[] = [];
  const b = attach({
    url: s.url,
    token: TOKENS.alphaOnly.value,
    agent: { id: 'alpha' },
    cursorStore: cursorFile,
    onEvent: (e) => void again.push(e),
    ackMode: 'manual',
  });
  await b.ready;
  await eventually(() => again.some((e) => textOf(e) === 'four'), 10_000, 'the message sent while detached');
  assert.equal(again.map(textOf).filter(Boolean), ['four']);
  await b.close();
  const c1: AttachedEvent[] = [];
  const c = attach({
    url: s.url,
    token: TOKENS.alphaOnly.value,
    agent: { id: 'alpha' },
    cursorStore: cursorFile,
    onEvent: (e) => void c1.push(e),
    ackMode: 'manual',
  });
  await c.ready;
  await eventually(() => c1.some((e) => textOf(e) === 'four'), 10_000, 'the unacknowledged message again');
  c1.forEach((e) => e.ack());
  await c.close();
});

t('auto mode acknowledges after the handler resolves and re-delivers when it throws', async ({ s, dir }) => {
  let failOnce = true;
  const seen: string[] = [];
  const a = attach({
    url: s.url,
    token: TOKENS.admin.value,
    agent: { id: 'beta' },
    cursorStore: path.join(dir, 'beta.json'),
    reconnect: { minMs: 50, maxMs: 100 },
    onEvent: async (e) => {
      const text = textOf(e);
      if (!text) return;
      seen.push(text);
      if (text === 'boom' && failOnce) {
        failOnce = false;
        throw new Error('handler crashed');
      }
    },
  });
  await a.ready;
  const r = await s.post(
    '/v1/messages',
    { target: { kind: 'room', room_id: 'general' }, from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text: 'boom' }] },
    TOKENS.alphaOnly.value,
  );
  assert.is(r.status, 200, r.text);
  await eventually(() => seen.filter((x) => x === 'boom').length === 2, 10_000, 'the re-delivery');
  await eventually(() => a.cursor() !== undefined && seen.length === 2 && a.connected, 5000, 'the ACK');
  await a.close();
});

t('a failed preflight or a refused IDENTIFY rejects `ready` with a coded error', async ({ s, dir }) => {
  const wrongNet = attach({
    url: s.url,
    token: TOKENS.alphaOnly.value,
    agent: { id: 'alpha' },
    networkId: 'lab',
    cursorStore: false,
    onEvent: () => undefined,
  });
  const e1 = await wrongNet.ready.catch((e: unknown) => e);
  assert.instance(e1, AttachError);
  assert.is((e1 as AttachError).code, 'network_mismatch');
  assert.match((e1 as Error).message, 'hosts network testnet, not lab');

  const notAllowed = attach({
    url: s.url,
    token: TOKENS.alphaOnly.value,
    agent: { id: 'gamma' },
    cursorStore: path.join(dir, 'g.json'),
    onEvent: () => undefined,
  });
  const e2 = await notAllowed.ready.catch((e: unknown) => e);
  assert.is((e2 as AttachError).code, 'forbidden');
  await notAllowed.done.catch(() => undefined);

  const badToken = attach({ url: s.url, token: 'nope-nope-nope', agent: { id: 'alpha' }, cursorStore: false, onEvent: () => undefined });
  const e3 = await badToken.ready.catch((e: unknown) => e);
  assert.is((e3 as { status?: number }).status, 401);
});

t('the package exports the client as svc/client', async () => {
  // Checked on the sources (no build needed): the export names the file tsc makes of
  // src/client/index.ts (rootDir src, outDir dist), and that module has the client's functions.
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { import: string; types: string }>;
  };
  assert.equal(pkg.exports['./client'], { types: './dist/client/index.d.ts', import: './dist/client/index.js' });
  const tsconfig = readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8');
  assert.match(tsconfig, /"rootDir":\s*"src"/);
  assert.match(tsconfig, /"outDir":\s*"dist"/);
  const m = (await import('../../src/client/index.js')) as Record<string, unknown>;
  assert.equal([typeof m.attach, typeof m.SvcClient, typeof m.fileCursorStore], ['function', 'function', 'function']);
});

t.run();

const open = suite('open registration through the client');

open('a first claim hands its token to onAgentToken and reconnects with it', async () => {
  const port = await freePort();
  const s = await startApp({
    config: { server: { listen_addr: `127.0.0.1:${port}` }, auth: { mode: 'open', agent_registration: 'open', tokens: [] } },
  });
  try {
    let token: string | undefined;
    const statuses: AttachStatus[] = [];
    const a = attach({
      url: s.url,
      agent: { id: 'scout' },
      cursorStore: false,
      reconnect: { minMs: 100, maxMs: 300 },
      onEvent: () => undefined,
      onAgentToken: (tk) => void (token = tk),
      onStatus: (st) => statuses.push(st),
    });
    await a.ready;
    assert.match(token ?? '', /^agt_v1_/);
    await s.restart();
    await eventually(() => statuses.some((st) => st.state === 'ready' && st.info.resumed), 20_000, 'the reconnect with the claimed token');
    const who = await a.client().getAgent('scout');
    assert.is(who.id, 'scout');
    await a.close();
  } finally {
    await closeAll();
    await s.dispose();
  }
});

open.run();

const beat = suite('heartbeats');

beat('a slow handler does not look like a dead connection: PINGs are answered outside the event queue', async () => {
  const s = await startApp({
    // 500 ms (a read deadline of 1 s): at 200 ms a test process held up 400 ms by a busy machine
    // (the whole suite keeps both cores busy) was dropped, a flake that says nothing of the client.
    config: { server: { heartbeat_interval_ms: 500 }, rooms: [{ id: 'general', name: 'General', members: ['beta'] }] },
  });
  try {
    const statuses: AttachStatus[] = [];
    let handled = 0;
    const a = attach({
      url: s.url,
      token: TOKENS.admin.value,
      agent: { id: 'beta' },
      cursorStore: false,
      onStatus: (st) => statuses.push(st),
      onEvent: async (e) => {
        if (e.event.type !== 'message.created') return;
        await new Promise((r) => setTimeout(r, 3000)); // several heartbeat intervals
        handled++;
      },
    });
    await a.ready;
    const r = await s.post(
      '/v1/messages',
      {
        target: { kind: 'room', room_id: 'general' },
        from: { type: 'human', id: 'op' },
        parts: [{ kind: 'text', text: 'take your time' }],
      },
      TOKENS.admin.value,
    );
    assert.is(r.status, 200, r.text);
    await eventually(() => handled === 1 && a.cursor() !== undefined, 10_000, 'the slow event to be handled');
    await new Promise((res) => setTimeout(res, 1200));
    assert.is(statuses.filter((st) => st.state === 'disconnected').length, 0, 'never dropped');
    assert.ok(a.connected);
    await a.close();
  } finally {
    await closeAll();
    await s.dispose();
  }
});

beat.run();
