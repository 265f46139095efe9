// Two networks paired through a real relay with the CLI, a third paired directly over HTTP, and a
// fake old server: invites, status transitions, remote reads, message relay both ways, restarts.
// The two networks of the invite are `svc serve` processes (the CLI edits their svc.yaml and they
// notice, and one is killed); the third, whose config never changes, runs in the test process.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { parse as parseYaml } from 'yaml';
import { editConfigFile, appendTo, indexById } from '../../src/config/edit.js';
import { decodeInvite, encodeInvite } from '../../src/pairing/invite.js';
import { dmIdFor } from '../../src/network/messages.js';
import {
  eventually,
  roomMessage,
  SVC_BIN,
  TOKENS,
  startServer,
  type HttpServer,
  type Json,
  type Res,
  type TestServer,
  PROCESS_START_MS,
} from '../helpers/server.js';
import { startApp, type AppServer } from '../helpers/app.js';

const BETA_ONLY = { id: 'beta-only', value: 'tok-betaonly-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['beta'] };
const GAMMA_ONLY = { id: 'gamma-only', value: 'tok-gammaonly-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['gamma'] };
const DIRECT_TOKEN = 'direct-pair-secret-7f3a9c1e55d2';
const LEGACY_TOKEN = 'legacy-pair-secret-0b8e4d2a91';
const WAIT = 20_000;

const baseTokens = () =>
  Object.values(TOKENS).map((t) => ({ ...t, scopes: [...t.scopes], ...('agents' in t ? { agents: [...t.agents] } : {}) }));

interface Cli {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<Cli> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [SVC_BIN, ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `svc relay --listen 127.0.0.1:0` as a child process. */
async function startRelay(): Promise<{ url: string; proc: ChildProcess; output: () => string; stop: () => Promise<void> }> {
  const proc = spawn(process.execPath, [SVC_BIN, 'relay', '--listen', '127.0.0.1:0'], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc relay did not start:\n${out}`)), PROCESS_START_MS);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /svc relay listening on (ws:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  return {
    url,
    proc,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

/** A server that answers GET /v1/network like an older svc speaking service.pair.v0. */
async function startOldServer(): Promise<{ url: string; auth: string[]; close: () => Promise<void> }> {
  const auth: string[] = [];
  const server = http.createServer((req, res) => {
    auth.push(String(req.headers.authorization));
    const doc = {
      id: 'old-net',
      name: 'Old Net',
      version: '0.0.9',
      protocols: { http: ['service.http.v1'], pair: ['service.pair.v0'] },
      capabilities: {
        event_stream: 'sse',
        attachment_protocol: 'websocket',
        human_ingress: true,
        direct_messages: true,
        message_pagination: 'cursor',
        pairings: true,
      },
    };
    const text = JSON.stringify(req.url === '/v1/network' ? doc : { error: 'no', code: 'not_found' });
    res.writeHead(req.url === '/v1/network' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, auth, close: () => new Promise((r) => server.close(() => r())) };
}

/** Follows /v1/events/stream in the background, keeping the raw text. */
function followEvents(url: string, token: string): { text: () => string; close: () => void } {
  const ac = new AbortController();
  let text = '';
  void (async () => {
    try {
      const r = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: ac.signal });
      const reader = r.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
    } catch {
      // aborted, or the server went away
    }
  })();
  return { text: () => text, close: () => ac.abort() };
}

/** Statuses of the pairing.updated events of one pairing, in order. */
function pairingStatuses(sse: string, id: string): string[] {
  return sse
    .split('\n\n')
    .filter((f) => f.includes('event: pairing.updated'))
    .map((f) => JSON.parse(/^data: (.*)$/m.exec(f)![1]!) as Json)
    .filter((e) => e.pairing?.id === id)
    .map((e) => e.pairing.status as string);
}

interface Ctx {
  events: ReturnType<typeof followEvents>;
  relay: Awaited<ReturnType<typeof startRelay>>;
  a: TestServer;
  b: TestServer;
  c?: AppServer;
  old?: Awaited<ReturnType<typeof startOldServer>>;
  code: string;
  pid: string;
  seen: string[];
  ids: Record<string, string>;
}

const t = suite<Ctx>('two networks paired with one invite');

/** Every response body any test saw, for the token check at the end. */
async function call(ctx: Ctx, s: HttpServer, method: string, path: string, token?: string, body?: unknown): Promise<Res> {
  const r = await s.req(method, path, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });
  ctx.seen.push(r.text);
  return r;
}
const get = (ctx: Ctx, s: HttpServer, path: string, token: string = TOKENS.observer.value) => call(ctx, s, 'GET', path, token);
const send = async (ctx: Ctx, s: HttpServer, body: unknown, token: string): Promise<string> => {
  const r = await call(ctx, s, 'POST', '/v1/messages', token, body);
  assert.is(r.status, 200, r.text);
  return r.body.message_id as string;
};

async function pairingOf(ctx: Ctx, s: HttpServer, id: string): Promise<Json> {
  const r = await get(ctx, s, '/v1/pairings');
  assert.is(r.status, 200, r.text);
  return (r.body.pairings as Json[]).find((p) => p.id === id);
}
const statusBecomes = (ctx: Ctx, s: HttpServer, id: string, status: string) =>
  eventually(async () => (await pairingOf(ctx, s, id))?.status === status, WAIT, `${s.networkId} pairing ${id} ${status}`);

const texts = async (ctx: Ctx, s: HttpServer, path: string): Promise<string[]> => {
  const r = await get(ctx, s, path);
  assert.is(r.status, 200, r.text);
  return (r.body.messages as Json[]).map((m) => m.parts[0].text as string);
};
const historyHas = (ctx: Ctx, s: HttpServer, path: string, text: string) =>
  eventually(
    async () => (await get(ctx, s, path)).body?.messages?.some((m: Json) => m.parts[0].text === text),
    WAIT,
    `${text} at ${s.networkId}${path}`,
  );

t.before(async (ctx) => {
  ctx.seen = [];
  ctx.ids = {};
  ctx.relay = await startRelay();
  const server = { pairing_check_interval_ms: 300 };
  [ctx.a, ctx.b] = await Promise.all([
    startServer({
      config: {
        network: { id: 'alpha-net', name: 'Alpha Net' },
        server,
        auth: { agent_registration: 'open', tokens: baseTokens() },
        rooms: [{ id: 'general', members: ['alpha'] }],
      },
    }),
    startServer({
      config: {
        network: { id: 'beta-net', name: 'Beta Net' },
        server,
        auth: { tokens: [...baseTokens(), BETA_ONLY] },
        rooms: [{ id: 'general', members: ['beta'] }],
      },
    }),
  ]);
  ctx.events = followEvents(`${ctx.a.url}/v1/events/stream?type=pairing.updated`, TOKENS.observer.value);
});

t.after(async (ctx) => {
  ctx.events?.close();
  await Promise.all([ctx.a?.dispose(), ctx.b?.dispose(), ctx.c?.dispose(), ctx.relay?.stop(), ctx.old?.close()]);
});

t('an invite is created through the CLI and the inviting side waits as pending, without a warning', async (ctx) => {
  const r = await cli(['invite', 'create', '--config', ctx.a.configFile, '--relay-url', ctx.relay.url, '--rooms', 'general']);
  assert.is(r.code, 0, r.stderr);
  ctx.code = r.stdout.trim();
  assert.match(ctx.code, /^service-invite:[A-Za-z0-9_-]+$/);
  assert.match(r.stderr, /shared rooms: general/);
  const inv = decodeInvite(ctx.code);
  ctx.pid = inv.pairing_id;
  assert.is(inv.network_id, 'alpha-net');
  assert.equal(inv.shared_rooms, ['general']);
  await statusBecomes(ctx, ctx.a, ctx.pid, 'pending');
  const p = await pairingOf(ctx, ctx.a, ctx.pid);
  assert.is(p.transport, 'relay');
  assert.is(p.remote_network_id, '');
  const doc = await get(ctx, ctx.a, '/v1/network');
  assert.not.ok((doc.body.warnings as Json[]).some((w) => w.code === 'pairing_compatibility'));
});

t('each bad invite is refused with a clear error and leaves the config untouched', async (ctx) => {
  const before = readFileSync(ctx.b.configFile, 'utf8');
  const inv = decodeInvite(ctx.code);
  const bad: [string, string, RegExp][] = [
    ['expired', encodeInvite({ ...inv, exp: '2020-01-01T00:00:00Z' }), /the invite expired at 2020-01-01/],
    ['version 2', encodeInvite({ ...inv, v: 2 }), /invite version 2 is not supported/],
    ['http relay', encodeInvite({ ...inv, relay_url: 'http://127.0.0.1:1/v1/relay' }), /must use ws:\/\/ or wss:\/\//],
    ['own network', encodeInvite({ ...inv, network_id: 'beta-net' }), /this network's own id/],
    ['damaged', 'service-invite:%%%', /damaged/],
    ['not an invite', 'hello', /must start with "service-invite:"/],
  ];
  for (const [what, code, message] of bad) {
    const r = await cli(['invite', 'accept', '--config', ctx.b.configFile, code]);
    assert.is(r.code, 1, what);
    assert.match(r.stderr, message, `${what}: ${r.stderr}`);
    assert.is(r.stderr.trim().split('\n').length, 1, `${what}: one line, no stack`);
  }
  assert.is(readFileSync(ctx.b.configFile, 'utf8'), before);
  const own = await cli(['invite', 'accept', '--config', ctx.a.configFile, ctx.code]);
  assert.is(own.code, 1);
  assert.match(own.stderr, /which is this network's own id/);
});

t('the invite is accepted through the CLI and both sides become connected', async (ctx) => {
  const r = await cli(['invite', 'accept', '--config', ctx.b.configFile, ctx.code]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`paired with Alpha Net \\(alpha-net\\) as pairing ${ctx.pid}`));
  await statusBecomes(ctx, ctx.b, ctx.pid, 'connected');
  await statusBecomes(ctx, ctx.a, ctx.pid, 'connected');
  const pb = await pairingOf(ctx, ctx.b, ctx.pid);
  assert.equal([pb.remote_network_id, pb.remote_network_name], ['alpha-net', 'Alpha Net']);
  assert.is(pb.diagnostics.remote_network_id, 'alpha-net');
  assert.equal(pb.diagnostics.remote_protocols.pair, ['service.pair.v1']);
  const pa = await pairingOf(ctx, ctx.a, ctx.pid);
  assert.equal([pa.remote_network_id, pa.remote_network_name], ['beta-net', 'Beta Net']);
  await eventually(
    () => pairingStatuses(ctx.events.text(), ctx.pid).join(',') === 'pending,connected',
    WAIT,
    'pairing.updated events pending then connected',
  );
  const metrics = await get(ctx, ctx.a, '/metrics', TOKENS.admin.value);
  assert.is(metrics.status, 200);
  assert.match(metrics.text, `svc_relay_connected{pairing="${ctx.pid}"} 1`);
  assert.match(metrics.text, new RegExp(`svc_relay_frames_total\\{pairing="${ctx.pid}",direction="in"\\} [1-9]`));
  const again = await cli(['invite', 'accept', '--config', ctx.b.configFile, ctx.code]);
  assert.is(again.code, 1);
  assert.match(again.stderr, /already exists/);
});

t('the remote network, rooms and agents are readable through the pairing', async (ctx) => {
  const net = await get(ctx, ctx.a, `/v1/pairings/${ctx.pid}/network`);
  assert.is(net.status, 200, net.text);
  assert.is(net.body.id, 'beta-net');
  assert.equal(net.body.protocols.pair, ['service.pair.v1']);
  const rooms = await get(ctx, ctx.a, `/v1/pairings/${ctx.pid}/rooms`);
  assert.is(rooms.status, 200, rooms.text);
  assert.equal(
    rooms.body.rooms.map((r: Json) => r.id),
    ['general'],
  );
  assert.is(rooms.body.rooms[0].network_id, 'beta-net');
  assert.equal(rooms.body.page, { has_more: false });
  const back = await get(ctx, ctx.b, `/v1/pairings/${ctx.pid}/network`);
  assert.is(back.body.id, 'alpha-net');
  const agents = await get(ctx, ctx.b, `/v1/pairings/${ctx.pid}/agents`);
  assert.is(agents.status, 200, agents.text);
  assert.equal(
    agents.body.agents.map((x: Json) => [x.id, x.network_id, 'name' in x]),
    [['alpha', 'alpha-net', false]],
  );
  assert.ok('page' in agents.body);
});

t('pairing routes refuse anonymous callers, self-registered agent tokens and unknown pairings', async (ctx) => {
  assert.is((await call(ctx, ctx.a, 'GET', '/v1/pairings')).status, 401);
  const reg = await call(ctx, ctx.a, 'POST', '/v1/agents/register', undefined, { requested_agent_id: 'drone' });
  assert.is(reg.status, 200, reg.text);
  const agentToken = reg.body.agent_token as string;
  assert.ok(agentToken);
  assert.is((await get(ctx, ctx.a, '/v1/pairings', agentToken)).status, 403);
  assert.is((await get(ctx, ctx.a, `/v1/pairings/${ctx.pid}/rooms`, agentToken)).status, 403);
  assert.is((await get(ctx, ctx.a, '/v1/pairings/nope/rooms')).status, 404);
  assert.is((await get(ctx, ctx.a, '/v1/pairings', TOKENS.pair.value)).status, 403);
});

t('an agents-allowlisted token sees only remote rooms that name its agent with this network', async (ctx) => {
  editConfigFile(ctx.b.configFile, (doc) => {
    appendTo(doc, ['rooms'], { id: 'ops', visibility: 'private', members: ['beta'], federation: { pairings: [ctx.pid] } });
    appendTo(doc, ['rooms'], {
      id: 'plans',
      visibility: 'private',
      members: ['beta', 'alpha-net:alpha'],
      federation: { pairings: [ctx.pid] },
    });
  });
  await eventually(
    async () => (await get(ctx, ctx.a, `/v1/pairings/${ctx.pid}/rooms`)).body?.rooms?.length === 3,
    WAIT,
    'B rooms reloaded',
  );
  const full = await get(ctx, ctx.a, `/v1/pairings/${ctx.pid}/rooms`);
  assert.equal(
    full.body.rooms.map((r: Json) => r.id),
    ['general', 'ops', 'plans'],
  );
  const limited = await get(ctx, ctx.a, `/v1/pairings/${ctx.pid}/rooms`, TOKENS.alphaOnly.value);
  assert.is(limited.status, 200, limited.text);
  assert.equal(
    limited.body.rooms.map((r: Json) => r.id),
    ['general', 'plans'],
  );
  const paged = await get(ctx, ctx.a, `/v1/pairings/${ctx.pid}/rooms?limit=1`);
  assert.equal([paged.body.rooms.map((r: Json) => r.id), paged.body.page], [['plans'], { has_more: true, next_before: 'plans' }]);
  assert.is((await get(ctx, ctx.a, `/v1/pairings/${ctx.pid}/rooms?before=ghost`)).status, 422);
});

t('a relayed message is refused by the write policy until membership is granted, then flows both ways', async (ctx) => {
  const early = await send(ctx, ctx.a, roomMessage('general', 'alpha', 'before membership'), TOKENS.alphaOnly.value);
  await eventually(() => ctx.a.output().includes(`message_id=${early}`), WAIT, 'refusal logged on A');
  assert.match(ctx.a.output(), /not a member of room general/);

  // B declares general's members in svc.yaml, so B grants there (declared members survive restarts);
  // A grants through the API.
  editConfigFile(ctx.b.configFile, (doc) => appendTo(doc, ['rooms', indexById(doc, ['rooms'], 'general'), 'members'], 'alpha-net:alpha'));
  assert.is((await call(ctx, ctx.a, 'PATCH', '/v1/rooms/general/members', TOKENS.admin.value, { add: ['beta-net:beta'] })).status, 200);
  await eventually(
    async () => (await get(ctx, ctx.b, '/v1/rooms/general')).body?.members?.includes('alpha-net:alpha'),
    WAIT,
    'B reloaded its members',
  );

  ctx.ids.hello = await send(ctx, ctx.a, roomMessage('general', 'alpha', 'hello from alpha'), TOKENS.alphaOnly.value);
  await historyHas(ctx, ctx.b, '/v1/rooms/general/messages', 'hello from alpha');
  const atB = (await get(ctx, ctx.b, '/v1/rooms/general/messages')).body.messages.find((m: Json) => m.parts[0].text === 'hello from alpha');
  assert.is(atB.id, ctx.ids.hello);
  assert.is(atB.network_id, 'beta-net');
  assert.equal(atB.origin, { network_id: 'alpha-net', message_id: ctx.ids.hello });
  assert.equal([atB.from.id, atB.from.network_id, atB.from.fqid], ['alpha', 'alpha-net', 'svc://alpha-net/agents/alpha']);

  ctx.ids.reply = await send(ctx, ctx.b, roomMessage('general', 'beta', 'hello from beta'), BETA_ONLY.value);
  await historyHas(ctx, ctx.a, '/v1/rooms/general/messages', 'hello from beta');
  const atA = (await get(ctx, ctx.a, '/v1/rooms/general/messages')).body.messages.find((m: Json) => m.id === ctx.ids.reply);
  assert.equal(atA.origin, { network_id: 'beta-net', message_id: ctx.ids.reply });
});

t('nothing echoes back: after a round trip each side holds each message exactly once', async (ctx) => {
  await send(ctx, ctx.a, roomMessage('general', 'alpha', 'sentinel a'), TOKENS.alphaOnly.value);
  await historyHas(ctx, ctx.b, '/v1/rooms/general/messages', 'sentinel a');
  await send(ctx, ctx.b, roomMessage('general', 'beta', 'sentinel b'), BETA_ONLY.value);
  await historyHas(ctx, ctx.a, '/v1/rooms/general/messages', 'sentinel b');
  assert.equal(await texts(ctx, ctx.a, '/v1/rooms/general/messages'), [
    'before membership',
    'hello from alpha',
    'hello from beta',
    'sentinel a',
    'sentinel b',
  ]);
  assert.equal(await texts(ctx, ctx.b, '/v1/rooms/general/messages'), ['hello from alpha', 'hello from beta', 'sentinel a', 'sentinel b']);
  // B relays in order, so an echo of 'sentinel a' would have reached A before 'sentinel b' did. A
  // refuses a message from its own network that claims an origin, and B would have logged that.
  const refusedAtA = /svc_http_requests_total\{route="\/v1\/messages",method="POST",status="403"\} [1-9]/;
  assert.not.match((await get(ctx, ctx.a, '/metrics', TOKENS.admin.value)).text, refusedAtA);
  assert.not.match(ctx.b.output(), /refused a relayed message/);
});

t('a relayed message cannot be replayed with a forged origin or into a room without federation', async (ctx) => {
  const body = (room: string, origin: Json) => ({
    ...roomMessage(room, 'alpha', 'forged'),
    from: { type: 'agent', id: 'alpha', network_id: 'alpha-net' },
    origin,
  });
  const pairTok = decodeInvite(ctx.code).pairing_token;
  const wrongOrigin = await call(
    ctx,
    ctx.b,
    'POST',
    '/v1/messages',
    pairTok,
    body('general', { network_id: 'elsewhere', message_id: 'm1' }),
  );
  assert.is(wrongOrigin.status, 403, wrongOrigin.text);
  const noOrigin = await call(ctx, ctx.b, 'POST', '/v1/messages', pairTok, {
    ...roomMessage('general', 'alpha', 'x'),
    from: { type: 'agent', id: 'alpha', network_id: 'alpha-net' },
  });
  assert.is(noOrigin.status, 400, noOrigin.text);
  assert.match(noOrigin.body.error, /body\.origin/);
  assert.is(
    (await call(ctx, ctx.b, 'POST', '/v1/rooms', TOKENS.admin.value, { id: 'closed', name: 'Closed', members: ['alpha-net:alpha'] }))
      .status,
    200,
  );
  const unfederated = await call(
    ctx,
    ctx.b,
    'POST',
    '/v1/messages',
    pairTok,
    body('closed', { network_id: 'alpha-net', message_id: 'm2' }),
  );
  assert.is(unfederated.status, 403);
  assert.match(unfederated.body.error, /does not federate/);
  const otherNet = await call(ctx, ctx.b, 'POST', '/v1/messages', pairTok, {
    ...body('general', { network_id: 'gamma-net', message_id: 'm3' }),
    from: { type: 'agent', id: 'x', network_id: 'gamma-net' },
  });
  assert.is(otherNet.status, 403);
  assert.match(otherNet.body.error, /relays for network alpha-net/);
});

t('a thread and a DM are relayed, and the DM answer comes back', async (ctx) => {
  const thread = {
    target: { kind: 'thread', room_id: 'general', thread_id: 't-plan', parent_message_id: ctx.ids.hello },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: 'in the thread' }],
  };
  await send(ctx, ctx.a, thread, TOKENS.alphaOnly.value);
  await historyHas(ctx, ctx.b, '/v1/threads/t-plan/messages', 'in the thread');
  const tb = await get(ctx, ctx.b, '/v1/threads/t-plan');
  assert.equal([tb.body.room_id, tb.body.parent_message_id], ['general', ctx.ids.hello]);

  const dm = await call(ctx, ctx.a, 'POST', '/v1/messages', TOKENS.alphaOnly.value, {
    target: { kind: 'dm', participant_ids: ['beta-net:beta'] },
    from: { type: 'agent', id: 'alpha' },
    parts: [{ kind: 'text', text: 'psst beta' }],
  });
  assert.is(dm.status, 200, dm.text);
  const dmId = dmIdFor(['alpha-net:alpha', 'beta-net:beta']);
  assert.equal(
    (await get(ctx, ctx.a, '/v1/dms')).body.dms.map((d: Json) => d.id),
    [dmId],
  );
  await historyHas(ctx, ctx.b, `/v1/dms/${dmId}/messages`, 'psst beta');
  const dmb = await get(ctx, ctx.b, `/v1/dms/${dmId}`);
  assert.equal(dmb.body.participant_ids, ['alpha-net:alpha', 'beta-net:beta']);
  await send(
    ctx,
    ctx.b,
    { target: { kind: 'dm', dm_id: dmId }, from: { type: 'agent', id: 'beta' }, parts: [{ kind: 'text', text: 'hi alpha' }] },
    BETA_ONLY.value,
  );
  await historyHas(ctx, ctx.a, `/v1/dms/${dmId}/messages`, 'hi alpha');
  assert.equal(await texts(ctx, ctx.a, `/v1/dms/${dmId}/messages`), ['psst beta', 'hi alpha']);
});

t('a third relay peer and a wrong relay token are refused', async (ctx) => {
  const cfg = parseYaml(readFileSync(ctx.a.configFile, 'utf8')) as Json;
  const relay = (cfg.pairings as Json[]).find((p) => p.id === ctx.pid).relay;
  const tryPeer = (token: string) =>
    new Promise<number>((resolve) => {
      const ws = new WebSocket(`${relay.url}?room=${encodeURIComponent(relay.room)}`, { headers: { authorization: `Bearer ${token}` } });
      ws.on('unexpected-response', (_q, res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
        ws.terminate();
      });
      ws.on('open', () => {
        resolve(101);
        ws.close();
      });
      ws.on('error', () => {});
    });
  assert.is(await tryPeer(relay.token), 409);
  assert.is(await tryPeer('not-the-relay-token'), 403);
});

t('a peer stopped mid-stream makes the pairing an error; on return nothing is lost or doubled', async (ctx) => {
  const sent: string[] = [];
  const burst = async (from: number, to: number) => {
    for (let i = from; i <= to; i++) {
      await send(ctx, ctx.a, roomMessage('general', 'alpha', `m${i}`), TOKENS.alphaOnly.value);
      sent.push(`m${i}`);
    }
  };
  await burst(1, 3);
  await ctx.b.stop();
  await burst(4, 6);
  await statusBecomes(ctx, ctx.a, ctx.pid, 'error');
  const warn = (await get(ctx, ctx.a, '/v1/network')).body.warnings.find((w: Json) => w.code === 'pairing_compatibility');
  assert.ok(warn, 'aggregate pairing warning');
  assert.match(warn.message, new RegExp(`${ctx.pid} \\(error`));
  await ctx.b.restart();
  await burst(7, 8);
  await historyHas(ctx, ctx.b, '/v1/rooms/general/messages', 'm8');
  const atB = (await texts(ctx, ctx.b, '/v1/rooms/general/messages')).filter((x) => /^m\d+$/.test(x));
  assert.equal(atB, sent);
  await statusBecomes(ctx, ctx.a, ctx.pid, 'connected');
});

t('messages accepted while the peer is away survive a crash of the sender and are delivered once', async (ctx) => {
  await ctx.b.stop();
  for (const text of ['q1', 'q2', 'q3']) await send(ctx, ctx.a, roomMessage('general', 'alpha', text), TOKENS.alphaOnly.value);
  await ctx.a.kill9();
  await ctx.a.restart();
  await ctx.b.restart();
  await historyHas(ctx, ctx.b, '/v1/rooms/general/messages', 'q3');
  const atB = await texts(ctx, ctx.b, '/v1/rooms/general/messages');
  assert.equal(
    atB.filter((x) => /^q\d$/.test(x)),
    ['q1', 'q2', 'q3'],
  );
  assert.is(new Set(atB).size, atB.length, 'no duplicates');
});

t('a direct pairing over HTTP relays both ways and never forwards a relayed message again', async (ctx) => {
  ctx.c = await startApp({
    config: {
      network: { id: 'gamma-net', name: 'Gamma Net' },
      // Never restarted: the memory store starts for less.
      store: { backend: 'memory' },
      server: { pairing_check_interval_ms: 300 },
      auth: { tokens: [...baseTokens(), GAMMA_ONLY, { id: 'direct-ac', value: DIRECT_TOKEN, scopes: ['pair'] }] },
      rooms: [{ id: 'general', members: ['gamma', 'alpha-net:alpha'], federation: { pairings: ['direct-ac'] } }],
      pairings: [
        {
          id: 'direct-ac',
          remote_network_id: 'alpha-net',
          remote_network_name: 'Alpha Net',
          remote_base_url: ctx.a.url,
          token: DIRECT_TOKEN,
          bound: true,
        },
      ],
    },
  });
  editConfigFile(ctx.a.configFile, (doc) => {
    appendTo(doc, ['auth', 'tokens'], { id: 'direct-ac', value: DIRECT_TOKEN, scopes: ['pair'] });
    appendTo(doc, ['pairings'], {
      id: 'direct-ac',
      remote_network_id: 'gamma-net',
      remote_base_url: ctx.c!.url,
      token: DIRECT_TOKEN,
      bound: true,
    });
    appendTo(doc, ['rooms', indexById(doc, ['rooms'], 'general'), 'federation', 'pairings'], 'direct-ac');
    // Declared members replace the stored ones on reload: declare both remote agents.
    appendTo(doc, ['rooms', indexById(doc, ['rooms'], 'general'), 'members'], 'beta-net:beta');
    appendTo(doc, ['rooms', indexById(doc, ['rooms'], 'general'), 'members'], 'gamma-net:gamma');
  });
  await statusBecomes(ctx, ctx.a, 'direct-ac', 'connected');
  await statusBecomes(ctx, ctx.c, 'direct-ac', 'connected');
  assert.is((await pairingOf(ctx, ctx.a, 'direct-ac')).transport, 'direct');
  await send(ctx, ctx.a, roomMessage('general', 'alpha', 'to everyone'), TOKENS.alphaOnly.value);
  await historyHas(ctx, ctx.c, '/v1/rooms/general/messages', 'to everyone');
  await historyHas(ctx, ctx.b, '/v1/rooms/general/messages', 'to everyone');
  await send(ctx, ctx.c, roomMessage('general', 'gamma', 'from gamma'), GAMMA_ONLY.value);
  await historyHas(ctx, ctx.a, '/v1/rooms/general/messages', 'from gamma');
  // One hop only: A got it by relay, so A never passes it on to B. A later A message proves B is caught up.
  await send(ctx, ctx.a, roomMessage('general', 'alpha', 'after gamma'), TOKENS.alphaOnly.value);
  await historyHas(ctx, ctx.b, '/v1/rooms/general/messages', 'after gamma');
  assert.not.ok((await texts(ctx, ctx.b, '/v1/rooms/general/messages')).includes('from gamma'));
});

t('a server advertising an old pair protocol makes the pairing incompatible, with diagnostics', async (ctx) => {
  ctx.old = await startOldServer();
  editConfigFile(ctx.a.configFile, (doc) => {
    appendTo(doc, ['pairings'], { id: 'legacy', remote_network_id: 'old-net', remote_base_url: ctx.old!.url, token: LEGACY_TOKEN });
  });
  await statusBecomes(ctx, ctx.a, 'legacy', 'incompatible');
  const p = await pairingOf(ctx, ctx.a, 'legacy');
  assert.is(p.diagnostics.reason, 'unsupported_pair_protocol');
  assert.equal(p.diagnostics.remote_protocols, { http: ['service.http.v1'], pair: ['service.pair.v0'] });
  assert.is(p.diagnostics.remote_version, '0.0.9');
  assert.ok(
    ctx.old.auth.every((h) => h === `Bearer ${LEGACY_TOKEN}`),
    'the pairing token is sent as the bearer',
  );
  const warn = (await get(ctx, ctx.a, '/v1/network')).body.warnings.find((w: Json) => w.code === 'pairing_compatibility');
  assert.is(warn.severity, 'error');
  assert.match(warn.message, /legacy \(incompatible: unsupported_pair_protocol\)/);
});

t('no token appears in any response or log line', async (ctx) => {
  const cfg = parseYaml(readFileSync(ctx.a.configFile, 'utf8')) as Json;
  const relay = (cfg.pairings as Json[]).find((p) => p.id === ctx.pid).relay;
  const inv = decodeInvite(ctx.code);
  const secrets = [
    inv.pairing_token,
    inv.relay_token,
    relay.token,
    relay.room,
    ctx.code.slice('service-invite:'.length, 60),
    DIRECT_TOKEN,
    LEGACY_TOKEN,
  ];
  for (const s of [ctx.a, ctx.b, ctx.c!]) {
    ctx.seen.push((await get(ctx, s, '/v1/pairings')).text);
    ctx.seen.push((await get(ctx, s, '/v1/network')).text);
  }
  const haystacks: [string, string][] = [
    ['responses', ctx.seen.join('\n')],
    ['alpha log', ctx.a.output()],
    ['beta log', ctx.b.output()],
    ['gamma log', ctx.c!.output()],
    ['relay log', ctx.relay.output()],
    ['event stream', ctx.events.text()],
  ];
  for (const [where, text] of haystacks) {
    for (const secret of secrets) assert.not.ok(text.includes(secret), `${where} contains a secret`);
  }
});

t.run();
