// Hostile input at the attachment protocol: generated frame sequences (bad JSON, wrong types,
// unknown ops, frames out of order, binary and invalid UTF-8, oversized frames) and upgrade abuse.
// The server answers with ERROR frames or close codes, never crashes, leaks no token, and stores
// nothing but the registrations of IDENTIFYs it accepted. A failure is written to
// test/.artifacts/fuzz-failures/attach-<seed>.json with the command that replays it (harness.ts).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import WebSocket from 'ws';
import { startServer, TOKENS, type Json, type TestServer } from '../helpers/server.js';
import { assertWellFormed, exchange, requestBytes } from './raw.js';
import { fuzzCheck, fuzzRun } from './harness.js';

// A fixed default seed keeps `npm test` reproducible; SVC_FUZZ_SEED=random explores new inputs.
const RUN = fuzzRun(Number(process.env.FUZZ_ATTACH_RUNS ?? 120));
const SERVER_OPS = new Set(['HELLO', 'READY', 'EVENT', 'ERROR', 'PING', 'PONG']);

interface Ctx {
  s: TestServer;
  agentsBefore: string[];
  /** agent ids a well-formed IDENTIFY named (IDENTIFY registers them) */
  readied: Set<string>;
}

const t = suite<Ctx>('the attachment protocol under hostile frames');
t.before(async (ctx) => {
  // Bad tokens by the dozen from one address: the failed-authentication limit is tested elsewhere.
  ctx.s = await startServer({
    config: { server: { limits: { auth_failures_per_minute: 1_000_000 } }, rooms: [{ id: 'general', members: ['alpha', 'beta'] }] },
  });
  ctx.agentsBefore = await agentIds(ctx.s);
  ctx.readied = new Set();
});
t.after(async (ctx) => ctx.s.dispose());

async function agentIds(s: TestServer): Promise<string[]> {
  const r = await s.get('/v1/agents?limit=500', TOKENS.admin.value);
  return r.body.agents.map((a: Json) => a.id).sort();
}

type Frame = { text: string } | { binary: Buffer } | { raw: Buffer };

const cursor = fc.oneof(
  fc.integer({ min: -5, max: 1e6 }),
  fc.constantFrom('0', '1', '-1', 'abc', '1e308', '', ' 3', '99999999999999999999999', '0x10'),
  fc.double(),
  fc.constant(null),
);
const agentId = fc.oneof(fc.constantFrom('alpha', 'beta', 'zeta', '', '../x', 'a'.repeat(65), 'ü'), fc.string({ maxLength: 12 }));

const goodIdentify = fc.record({ agent: agentId, cursor: fc.option(cursor, { nil: undefined }) }).map(({ agent, cursor: c }) => ({
  op: 'IDENTIFY',
  network_id: 'testnet',
  agent: { id: agent },
  ...(c !== undefined ? { cursor: c } : {}),
}));

const frameValue: fc.Arbitrary<Json> = fc.oneof(
  goodIdentify,
  fc.record(
    {
      op: fc.constantFrom('IDENTIFY', 'ACK', 'PING', 'PONG', 'ERROR', 'READY', 'EVENT', 'HELLO', 'identify', '', 'NOPE'),
      network_id: fc.oneof(fc.constant('testnet'), fc.string()),
      agent: fc.oneof(fc.record({ id: agentId }), fc.anything({ maxDepth: 2 })),
      cursor,
      capabilities: fc.anything({ maxDepth: 2 }),
      error: fc.anything({ maxDepth: 1 }),
    },
    { requiredKeys: ['op'] },
  ),
  fc.anything({ maxDepth: 3 }),
  fc.constant({ op: 'ACK', cursor: 5 }),
  fc.constant({ op: 'ERROR', error: 'client blew up' }),
);

const frame: fc.Arbitrary<Frame> = fc.oneof(
  { weight: 6, arbitrary: frameValue.map((v) => ({ text: JSON.stringify(v) ?? 'undefined' })) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 100 }).map((text) => ({ text })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => ({ binary: Buffer.from(b) })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Frame>(
      { raw: Buffer.from([0xc3, 0x28, 0xff, 0xfe]) },
      { text: `{"op":"PING","x":${'['.repeat(50_000)}${']'.repeat(50_000)}}` },
      { text: `{"op":"IDENTIFY","network_id":"testnet","agent":{"id":"alpha","name":"${'n'.repeat(300)}"}}` },
    ),
  },
);

const token = fc.constantFrom(undefined, TOKENS.admin.value, TOKENS.alphaOnly.value, TOKENS.attacher.value, TOKENS.observer.value, 'nope');

/** Connects, sends the frames, and collects what the server says until it closes or goes quiet. */
async function session(
  s: TestServer,
  tok: string | undefined,
  frames: Frame[],
): Promise<{ status?: number; body?: string; frames: string[]; close?: number }> {
  const ws = new WebSocket(`ws://127.0.0.1:${s.port}/v1/attach`, { headers: tok ? { authorization: `Bearer ${tok}` } : {} });
  const got: string[] = [];
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: { status?: number; body?: string; close?: number }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      ws.terminate();
      resolve({ ...r, frames: got });
    };
    const timer = setTimeout(() => finish({}), 1500);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => finish({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', () => finish({}));
    ws.on('close', (code) => finish({ close: code }));
    ws.on('message', (d, isBinary) => {
      got.push(isBinary ? '(binary)' : d.toString());
      if (got.length === 1) {
        for (const f of frames) {
          if ('text' in f) ws.send(f.text);
          else if ('binary' in f) ws.send(f.binary, { binary: true });
          else ws.send(f.raw, { binary: false });
        }
      }
    });
  });
}

/** Notes the agent id of a well-formed IDENTIFY (it may be registered, READY or not). */
function validIdentifyAgent(text: string, into: Set<string>): void {
  try {
    const f = JSON.parse(text);
    if (
      f?.op === 'IDENTIFY' &&
      f.network_id === 'testnet' &&
      typeof f.agent?.id === 'string' &&
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(f.agent.id)
    )
      into.add(f.agent.id);
  } catch {
    // not JSON: cannot register anything
  }
}

function checkFrames(frames: string[], what: string, readied: Set<string>): void {
  for (const raw of frames) {
    assert.not.ok(raw === '(binary)', `${what}: the server sent a binary frame`);
    const f = JSON.parse(raw);
    assert.ok(SERVER_OPS.has(f.op), `${what}: unknown server op ${f.op}`);
    if (f.op === 'ERROR') assert.type(f.error, 'string', `${what}: ERROR without error text`);
    if (f.op === 'READY') readied.add(f.agent_id);
    for (const tok of Object.values(TOKENS)) assert.not.ok(raw.includes(tok.value), `${what}: a frame holds the token ${tok.id}`);
  }
  const first = frames[0];
  if (first) assert.is(JSON.parse(first).op, 'HELLO', `${what}: the first frame is not HELLO`);
}

t('answers every generated frame sequence with protocol frames or a close, and stays up', async (ctx) => {
  const { s } = ctx;
  await fuzzCheck(
    'attach',
    'test/fuzz/attach.test.ts',
    fc.asyncProperty(token, fc.array(frame, { minLength: 1, maxLength: 5 }), async (tok, frames) => {
      const what = `${tok ?? 'anonymous'} ${JSON.stringify(frames).slice(0, 300)}`;
      // A well-formed IDENTIFY registers its agent even if the session then fails or closes early.
      for (const f of frames) if ('text' in f) validIdentifyAgent(f.text, ctx.readied);
      const r = await session(s, tok, frames);
      if (r.status !== undefined) {
        assert.ok(r.status === 401 || r.status === 403, `${what}: upgrade refused with ${r.status}: ${r.body}`);
        const body = JSON.parse(r.body ?? '');
        assert.type(body.code, 'string');
        return;
      }
      checkFrames(r.frames, what, ctx.readied);
      if (r.close !== undefined)
        assert.ok([1000, 1001, 1002, 1003, 1007, 1008, 1009, 1011, 4000, 1005, 1006].includes(r.close), `${what}: close code ${r.close}`);
      assert.not.ok(r.close === 1011, `${what}: the server reported an internal error`);
    }),
    RUN,
  );
  assert.is((await s.get('/healthz')).status, 200);
});

t('closes a session that sends a frame over 1 MiB with 1009', async ({ s }) => {
  const r = await session(s, TOKENS.admin.value, [{ text: JSON.stringify({ op: 'PING', pad: 'x'.repeat(1024 * 1024 + 16) }) }]);
  assert.is(r.close, 1009);
  assert.is((await s.get('/healthz')).status, 200);
});

t('rejects frames out of order with an ERROR frame before closing', async ({ s, readied }) => {
  const ack = await session(s, TOKENS.admin.value, [{ text: '{"op":"ACK","cursor":1}' }]);
  assert.equal(JSON.parse(ack.frames[1]!).code, 'unexpected_frame');
  const twice = await session(s, TOKENS.admin.value, [
    { text: '{"op":"IDENTIFY","network_id":"testnet","agent":{"id":"fz-twice"}}' },
    { text: '{"op":"IDENTIFY","network_id":"testnet","agent":{"id":"fz-twice"}}' },
  ]);
  readied.add('fz-twice');
  const codes = twice.frames
    .map((f) => JSON.parse(f))
    .filter((f) => f.op === 'ERROR')
    .map((f) => f.code);
  assert.equal(codes, ['unexpected_frame']);
});

const UPGRADE = (extra: [string, string][]) =>
  requestBytes('GET', '/v1/attach', [
    ['upgrade', 'websocket'],
    ['connection', 'Upgrade'],
    ['sec-websocket-version', '13'],
    ['sec-websocket-key', 'dGhlIHNhbXBsZSBub25jZQ=='],
    ...extra,
  ]);

t('refuses upgrade abuse with an envelope, not a crash', async ({ s }) => {
  const cases: { name: string; bytes: Buffer; status: number[] }[] = [
    {
      name: 'a foreign browser origin',
      bytes: UPGRADE([
        ['authorization', `Bearer ${TOKENS.admin.value}`],
        ['origin', 'https://evil.example'],
      ]),
      status: [403],
    },
    {
      name: 'an origin that is not a URL',
      bytes: UPGRADE([
        ['authorization', `Bearer ${TOKENS.admin.value}`],
        ['origin', 'null'],
      ]),
      status: [403],
    },
    { name: 'an invalid token', bytes: UPGRADE([['authorization', 'Bearer nope']]), status: [401] },
    { name: 'an under-scoped token', bytes: UPGRADE([['authorization', `Bearer ${TOKENS.observer.value}`]]), status: [403] },
    {
      name: 'a wrong websocket version',
      bytes: requestBytes('GET', '/v1/attach', [
        ['upgrade', 'websocket'],
        ['connection', 'Upgrade'],
        ['sec-websocket-version', '8'],
        ['sec-websocket-key', 'x'],
        ['authorization', `Bearer ${TOKENS.admin.value}`],
      ]),
      status: [400, 426],
    },
    {
      name: 'a missing key',
      bytes: requestBytes('GET', '/v1/attach', [
        ['upgrade', 'websocket'],
        ['connection', 'Upgrade'],
        ['sec-websocket-version', '13'],
        ['authorization', `Bearer ${TOKENS.admin.value}`],
      ]),
      status: [400],
    },
    {
      name: 'an upgrade to another path',
      bytes: requestBytes('GET', '/v1/rooms', [
        ['upgrade', 'websocket'],
        ['connection', 'Upgrade'],
        ['sec-websocket-version', '13'],
        ['sec-websocket-key', 'dGhlIHNhbXBsZSBub25jZQ=='],
      ]),
      status: [404],
    },
  ];
  for (const c of cases) {
    const a = await exchange(s.port, c.bytes, 5000);
    assert.ok(c.status.includes(a.status), `${c.name}: status ${a.status} ${a.body.toString().slice(0, 200)}`);
    if (a.body.length > 0) assertWellFormed(a, `GET /v1/attach (${c.name})`);
  }
  assert.is((await s.get('/healthz')).status, 200);
});

t(
  'has stored nothing but the registrations of accepted IDENTIFYs, and leaked no token to the log',
  async ({ s, agentsBefore, readied }) => {
    const after = await agentIds(s);
    for (const id of agentsBefore) assert.ok(after.includes(id), `agent ${id} disappeared`);
    for (const id of after)
      assert.ok(agentsBefore.includes(id) || readied.has(id), `agent ${id} was registered by no well-formed IDENTIFY`);
    assert.not.match(s.output(), /tok-[a-z]+-0123456789/);
  },
);

t.run();
