import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { createRelayServer, type RelayServer } from '../../src/relay/server.js';
import { Hub } from '../../src/relay/hub.js';

interface Peer {
  ws: WebSocket;
  frames: string[];
  closed: Promise<{ code: number; reason: string }>;
  next(pred?: (f: string) => boolean): Promise<string>;
}

/** Opens a relay peer; resolves once open, rejects with the refusal status. */
function connect(url: string, room: string, token?: string): Promise<Peer> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url}?room=${encodeURIComponent(room)}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const frames: string[] = [];
    const waiters: { pred: (f: string) => boolean; resolve: (f: string) => void }[] = [];
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.on('close', (code, reason) => r({ code, reason: String(reason) })),
    );
    ws.on('message', (d) => {
      const f = String(d);
      const i = waiters.findIndex((w) => w.pred(f));
      if (i >= 0) waiters.splice(i, 1)[0]!.resolve(f);
      else frames.push(f);
    });
    ws.on('unexpected-response', (_req, res) => {
      reject(new Error(`HTTP ${res.statusCode}`));
      res.resume();
      ws.terminate();
    });
    ws.on('error', () => {});
    ws.on('open', () =>
      resolve({
        ws,
        frames,
        closed,
        next(pred = () => true) {
          const i = frames.findIndex(pred);
          if (i >= 0) return Promise.resolve(frames.splice(i, 1)[0]!);
          return new Promise((r) => waiters.push({ pred, resolve: r }));
        },
      }),
    );
  });
}

const refusedWith = async (p: Promise<Peer>): Promise<string> => {
  try {
    const peer = await p;
    peer.ws.close();
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
};

const isPeerFrame = (f: string) => f.startsWith('{"op":"relay.peer"');
const notPeerFrame = (f: string) => !isPeerFrame(f);

const t = suite<{ relay: RelayServer; url: string }>('the relay');
t.before(async (ctx) => {
  ctx.relay = createRelayServer({ maxFrameBytes: 64 * 1024, idleTimeoutMs: 60_000 });
  const { port } = await ctx.relay.listen('127.0.0.1:0');
  ctx.url = `ws://127.0.0.1:${port}/v1/relay`;
});
t.after(async (ctx) => ctx.relay.close());

t('two peers with the same token meet and frames pass both ways unchanged', async ({ url }) => {
  const a = await connect(url, 'room-1', 'tok-1');
  assert.equal(JSON.parse(await a.next(isPeerFrame)), { op: 'relay.peer', connected: false });
  const b = await connect(url, 'room-1', 'tok-1');
  assert.equal(JSON.parse(await b.next(isPeerFrame)), { op: 'relay.peer', connected: true });
  assert.equal(JSON.parse(await a.next(isPeerFrame)), { op: 'relay.peer', connected: true });
  const frame = '{"op":"request","id":"r1","method":"GET","path":"/v1/network","headers":{"authorization":"Bearer x"}}';
  a.ws.send(frame);
  assert.is(await b.next(notPeerFrame), frame);
  b.ws.send('not even JSON');
  assert.is(await a.next(notPeerFrame), 'not even JSON');
  a.ws.close();
  assert.equal(JSON.parse(await b.next(isPeerFrame)), { op: 'relay.peer', connected: false });
  b.ws.close();
});

t('a third peer is refused with 409 and the two keep talking', async ({ url }) => {
  const a = await connect(url, 'room-2', 'tok-2');
  const b = await connect(url, 'room-2', 'tok-2');
  assert.is(await refusedWith(connect(url, 'room-2', 'tok-2')), 'HTTP 409');
  a.ws.send('still here');
  assert.is(await b.next(notPeerFrame), 'still here');
  a.ws.close();
  b.ws.close();
  await Promise.all([a.closed, b.closed]);
});

t('the first token binds the room: a wrong token is refused with 403, none with 401', async ({ url }) => {
  const a = await connect(url, 'room-3', 'tok-3');
  assert.is(await refusedWith(connect(url, 'room-3', 'tok-wrong')), 'HTTP 403');
  assert.is(await refusedWith(connect(url, 'room-3')), 'HTTP 401');
  a.ws.close();
  await a.closed;
});

t('an emptied room forgets its binding', async ({ url, relay }) => {
  const a = await connect(url, 'room-4', 'first');
  a.ws.close();
  await a.closed;
  // The relay may see the close a moment after the client does.
  for (let i = 0; i < 100 && relay.hub.stats().rooms > 0; i++) await new Promise((r) => setTimeout(r, 10));
  const b = await connect(url, 'room-4', 'second');
  b.ws.close();
  await b.closed;
});

t('a bad room name or path is refused before the upgrade', async ({ url }) => {
  assert.is(await refusedWith(connect(url, 'bad room', 't')), 'HTTP 400');
  assert.is(await refusedWith(connect(url.replace('/v1/relay', '/elsewhere'), 'r', 't')), 'HTTP 404');
});

t('a frame over the size limit closes that peer with 1009', async ({ url }) => {
  const a = await connect(url, 'room-5', 'tok-5');
  const b = await connect(url, 'room-5', 'tok-5');
  a.ws.send('x'.repeat(64 * 1024 + 1));
  assert.is((await a.closed).code, 1009);
  assert.equal(JSON.parse(await b.next(isPeerFrame)), { op: 'relay.peer', connected: true });
  assert.equal(JSON.parse(await b.next(isPeerFrame)), { op: 'relay.peer', connected: false });
  b.ws.close();
});

t('healthz reports rooms and peers', async ({ url }) => {
  const a = await connect(url, 'room-6', 'tok-6');
  const r = await fetch(url.replace('ws://', 'http://').replace('/v1/relay', '/healthz'));
  const body = (await r.json()) as { status: string; rooms: number; peers: number };
  assert.is(body.status, 'ok');
  assert.ok(body.rooms >= 1 && body.peers >= 1);
  a.ws.close();
  await a.closed;
});

t.run();

const idle = suite<{ relay: RelayServer; url: string }>('a relay with a short idle limit');
idle.before(async (ctx) => {
  ctx.relay = createRelayServer({ idleTimeoutMs: 100 });
  const { port } = await ctx.relay.listen('127.0.0.1:0');
  ctx.url = `ws://127.0.0.1:${port}/v1/relay`;
});
idle.after(async (ctx) => ctx.relay.close());

idle('closes the peers of a room without traffic', async ({ url }) => {
  const a = await connect(url, 'quiet', 'tok');
  const closed = await a.closed;
  assert.is(closed.code, 4000);
  assert.is(closed.reason, 'idle room closed');
});

idle.run();

const hub = suite('the relay hub');

hub('refuses new rooms past its limit, but still admits the second peer of an open room', () => {
  const h = new Hub({ maxRooms: 1 });
  const first = h.admit('a', 't');
  assert.ok(first.ok);
  const full = h.admit('b', 't');
  assert.equal(full.ok ? 'admitted' : full.status, 503);
  assert.ok(h.admit('a', 't').ok);
});

hub('closes idle rooms by their last activity', () => {
  let now = 0;
  const h = new Hub({ maxRooms: 10, now: () => now });
  const closed: string[] = [];
  const slot = h.admit('a', 't');
  assert.ok(slot.ok);
  if (slot.ok) h.attach(slot.slot, { send: () => {}, close: (_c, r) => closed.push(r) });
  now = 50;
  assert.is(h.sweepIdle(100), 0);
  now = 150;
  assert.is(h.sweepIdle(100), 1);
  assert.equal(closed, ['idle room closed']);
  assert.equal(h.stats(), { rooms: 0, peers: 0 });
});

hub.run();
