// The relay admits only what it should: new rooms are limited per client address, and a relay
// started with an access token admits only peers that send it; invites carry the token, so two
// networks paired by invite still meet there.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { parse } from 'yaml';
import { createRelayServer, RELAY_DEFAULTS, type RelayServer } from '../../src/relay/server.js';
import { decodeInvite } from '../../src/pairing/invite.js';
import { cli } from '../helpers/cli.js';
import { eventually, startServer, SVC_BIN, TOKENS, type Json, type TestServer } from '../helpers/server.js';
import { startApp } from '../helpers/app.js';

/** Opens a peer; resolves 'open' or the refusal's status and Retry-After. */
function attempt(
  url: string,
  room: string,
  o: { token?: string; access?: string; from?: string } = {},
): Promise<{ status: number | 'open'; retryAfter?: string; ws?: WebSocket }> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { authorization: `Bearer ${o.token ?? 'room-token-0123456789'}` };
    if (o.access) headers['x-relay-access-token'] = o.access;
    const ws = new WebSocket(`${url}?room=${encodeURIComponent(room)}`, { headers, ...(o.from ? { localAddress: o.from } : {}) });
    ws.on('unexpected-response', (_req, res) => {
      const ra = res.headers['retry-after'];
      resolve({ status: res.statusCode ?? 0, ...(typeof ra === 'string' ? { retryAfter: ra } : {}) });
      res.resume();
      ws.terminate();
    });
    ws.on('error', () => {});
    ws.on('open', () => resolve({ status: 'open', ws }));
  });
}

async function relayOn(opts: Parameters<typeof createRelayServer>[0]): Promise<{ relay: RelayServer; url: string }> {
  const relay = createRelayServer(opts);
  const a = await relay.listen('127.0.0.1:0');
  return { relay, url: `ws://127.0.0.1:${a.port}/v1/relay` };
}

const rate = suite<{ relay: RelayServer; url: string }>('room creation per address');
rate.before(async (ctx) => {
  Object.assign(ctx, await relayOn({ roomsPerAddressPerMinute: 3 }));
});
rate.after(async (ctx) => ctx.relay.close());

rate('an address that creates rooms past its rate gets 429 with Retry-After; joining is not limited', async ({ url }) => {
  const opened: WebSocket[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await attempt(url, `room-${i}`, { from: '127.0.0.31' });
    assert.is(r.status, 'open');
    opened.push(r.ws!);
  }
  const refused = await attempt(url, 'room-3', { from: '127.0.0.31' });
  assert.is(refused.status, 429);
  assert.ok(Number(refused.retryAfter) >= 1, refused.retryAfter);
  // The second peer of an existing room is admitted: only creating rooms fills the relay.
  const join = await attempt(url, 'room-0', { from: '127.0.0.31' });
  assert.is(join.status, 'open');
  opened.push(join.ws!);
  // Another address still creates rooms.
  const other = await attempt(url, 'room-other', { from: '127.0.0.32' });
  assert.is(other.status, 'open');
  opened.push(other.ws!);
  for (const ws of opened) ws.close();
});

rate('wrong tokens for an existing room count against the address; the right token still joins', async ({ url }) => {
  const owner = await attempt(url, 'bound-room', { from: '127.0.0.35', token: 'the-real-room-token-0123' });
  assert.is(owner.status, 'open');
  const statuses: (number | string)[] = [];
  for (let i = 0; i < 5; i++)
    statuses.push((await attempt(url, 'bound-room', { from: '127.0.0.36', token: `guess-${i}-0123456789` })).status);
  assert.equal(statuses, [403, 403, 403, 429, 429]);
  const peer = await attempt(url, 'bound-room', { from: '127.0.0.36', token: 'the-real-room-token-0123' });
  assert.is(peer.status, 'open');
  owner.ws!.close();
  peer.ws!.close();
});

rate('the default rate is 10 new rooms per minute per address', () => {
  assert.is(RELAY_DEFAULTS.roomsPerAddressPerMinute, 10);
});

const access = suite<{ relay: RelayServer; url: string }>('a relay with an access token');
access.before(async (ctx) => {
  Object.assign(ctx, await relayOn({ accessToken: 'relay-access-0123456789', roomsPerAddressPerMinute: 4 }));
});
access.after(async (ctx) => ctx.relay.close());

access('refuses peers without the token or with a wrong one, and admits the token', async ({ url }) => {
  assert.is((await attempt(url, 'a1', { from: '127.0.0.41' })).status, 401);
  assert.is((await attempt(url, 'a1', { from: '127.0.0.41', access: 'wrong' })).status, 401);
  const ok = await attempt(url, 'a1', { from: '127.0.0.42', access: 'relay-access-0123456789' });
  assert.is(ok.status, 'open');
  ok.ws!.close();
  assert.is(url.includes('relay-access'), false);
});

access('wrong tokens count against the address like new rooms, so guessing is slow', async ({ url }) => {
  const statuses: (number | string)[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await attempt(url, `g${i}`, { from: '127.0.0.43', access: `guess-${i}` })).status);
  assert.equal(statuses.slice(0, 4), [401, 401, 401, 401]);
  assert.equal(statuses.slice(4), [429, 429]);
});

rate.run();
access.run();

// ---- end to end: svc relay --access-token-env, invite create carries the token ----------------------

async function startRelayProcess(
  env: Record<string, string>,
  args: string[],
): Promise<{ url?: string; proc: ChildProcess; out: () => string; exited: Promise<number | null> }> {
  const proc = spawn(process.execPath, [SVC_BIN, 'relay', '--listen', '127.0.0.1:0', ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = await new Promise<string | undefined>((resolve) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /svc relay listening on (ws:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    exited.then(() => resolve(undefined));
  });
  return { ...(url ? { url } : {}), proc, out: () => out, exited };
}

const e2e = suite<{ relay: Awaited<ReturnType<typeof startRelayProcess>>; a: TestServer; b: TestServer }>(
  'two networks paired through a relay that requires an access token',
);
e2e.before(async (ctx) => {
  ctx.relay = await startRelayProcess({ RELAY_ACCESS: 'relay-access-abcdef0123456789' }, ['--access-token-env', 'RELAY_ACCESS']);
  const server = { pairing_check_interval_ms: 300 };
  [ctx.a, ctx.b] = await Promise.all([
    startServer({ config: { network: { id: 'alpha-net', name: 'Alpha Net' }, server } }),
    startServer({ config: { network: { id: 'beta-net', name: 'Beta Net' }, server } }),
  ]);
});
e2e.after(async (ctx) => {
  ctx.relay?.proc.kill('SIGTERM');
  await Promise.all([ctx.a?.dispose(), ctx.b?.dispose(), ctx.relay?.exited]);
});

e2e('svc relay refuses to start when the named variable is not set', async () => {
  const r = await startRelayProcess({}, ['--access-token-env', 'NOT_SET_ANYWHERE']);
  assert.is(r.url, undefined);
  assert.is(await r.exited, 2);
  assert.match(r.out(), /--access-token-env: environment variable NOT_SET_ANYWHERE is not set/);
});

e2e('the invite carries the access token and both sides connect through the relay', async ({ relay, a, b }) => {
  assert.match(relay.out(), /peers need the access token/);
  const created = await cli(
    ['invite', 'create', '--config', a.configFile, '--relay-url', relay.url!, '--relay-access-token-env', 'RELAY_ACCESS'],
    { env: { RELAY_ACCESS: 'relay-access-abcdef0123456789' } },
  );
  assert.is(created.code, 0, created.stderr);
  const code = created.stdout.trim();
  const inv = decodeInvite(code);
  assert.is(inv.relay_access_token, 'relay-access-abcdef0123456789');
  const accepted = await cli(['invite', 'accept', code, '--config', b.configFile]);
  assert.is(accepted.code, 0, accepted.stderr);
  for (const file of [a.configFile, b.configFile]) {
    const doc = parse(readFileSync(file, 'utf8')) as Json;
    assert.is(doc.pairings[0].relay.access_token, 'relay-access-abcdef0123456789', file);
  }
  const status = async (s: TestServer) => ((await s.get('/v1/pairings', TOKENS.observer.value)).body.pairings as Json[])[0]?.status;
  await eventually(async () => (await status(a)) === 'connected' && (await status(b)) === 'connected', 20_000, 'both pairings connected');
  // The token never shows in the pairing views.
  assert.not.match((await a.get('/v1/pairings', TOKENS.admin.value)).text, /relay-access-abcdef/);
});

e2e('a pairing without the token cannot use that relay, and says so in words', async ({ relay }) => {
  const r = await attempt(relay.url!, 'no-token-room', {});
  assert.is(r.status, 401);
  // In the test process: nothing here edits its config (the invite's two networks do, as processes).
  const s = await startApp({
    config: {
      pairings: [
        {
          id: 'tokenless',
          remote_network_id: 'far',
          token: 'tok-tokenless-0123456789',
          bound: true,
          relay: { url: relay.url, room: 'tokenless-room' },
        },
      ],
    },
  });
  try {
    await eventually(
      async () => {
        const proxied = await s.get('/v1/pairings/tokenless/network', TOKENS.admin.value);
        return proxied.status === 502 && /access token is missing or wrong/.test(proxied.body.error);
      },
      10_000,
      'a 502 naming the missing access token',
    );
  } finally {
    await s.dispose();
  }
});

e2e.run();
