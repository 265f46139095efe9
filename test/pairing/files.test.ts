// Files in relayed messages (#41 part 6), on two real networks paired directly over HTTP: a file
// of at most 1 MiB is carried with the message (the peer stores its own copy, readable there by
// whoever reads the message), both ways; a larger one reaches the peer as its metadata only.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendTo, editConfigFile, indexById } from '../../src/config/edit.js';
import { PAIRING_CARRY_BYTES } from '../../src/pairing/relay-files.js';
import { eventually, startServer, TOKENS, type Json, type TestServer } from '../helpers/server.js';

const PAIR_TOKEN = 'files-pair-secret-4c9e1a7b33';
const GAMMA_ONLY = { id: 'gamma-only', value: 'tok-gammaonly-0123456789', scopes: ['observe', 'write', 'attach'], agents: ['gamma'] };
const WAIT = 30_000;
const baseTokens = () =>
  Object.values(TOKENS).map((t) => ({ ...t, scopes: [...t.scopes], ...('agents' in t ? { agents: [...t.agents] } : {}) }));

interface Ctx {
  a: TestServer;
  c: TestServer;
}

const t = suite<Ctx>('files in messages relayed over a pairing');

t.before(async (ctx) => {
  ctx.a = await startServer({
    config: {
      network: { id: 'alpha-net', name: 'Alpha Net' },
      store: { backend: 'memory' },
      server: { pairing_check_interval_ms: 300 },
      auth: { tokens: [...baseTokens(), { id: 'pair-ac', value: PAIR_TOKEN, scopes: ['pair'] }] },
      rooms: [{ id: 'general', members: ['alpha', 'gamma-net:gamma'] }],
    },
  });
  ctx.c = await startServer({
    config: {
      network: { id: 'gamma-net', name: 'Gamma Net' },
      store: { backend: 'memory' },
      server: { pairing_check_interval_ms: 300 },
      auth: { tokens: [...baseTokens(), GAMMA_ONLY, { id: 'pair-ac', value: PAIR_TOKEN, scopes: ['pair'] }] },
      rooms: [{ id: 'general', members: ['gamma', 'alpha-net:alpha'], federation: { pairings: ['pair-ac'] } }],
      pairings: [{ id: 'pair-ac', remote_network_id: 'alpha-net', remote_base_url: ctx.a.url, token: PAIR_TOKEN, bound: true }],
    },
  });
  editConfigFile(ctx.a.configFile, (doc) => {
    appendTo(doc, ['pairings'], {
      id: 'pair-ac',
      remote_network_id: 'gamma-net',
      remote_base_url: ctx.c.url,
      token: PAIR_TOKEN,
      bound: true,
    });
    doc.setIn(['rooms', indexById(doc, ['rooms'], 'general'), 'federation'], { pairings: ['pair-ac'] });
  });
  for (const s of [ctx.a, ctx.c])
    await eventually(
      async () =>
        (await s.get('/v1/pairings', TOKENS.admin.value)).body.pairings.find((p: Json) => p.id === 'pair-ac')?.status === 'connected',
      WAIT,
      `${s.networkId} connected`,
    );
});
t.after(async (ctx) => {
  await ctx.c?.dispose();
  await ctx.a?.dispose();
});

/** Uploads `bytes` on `s` and sends them in general with `text`, as `agent` with `token`. */
async function sendFile(s: TestServer, agent: string, token: string, name: string, bytes: Buffer, text: string): Promise<void> {
  const up = await s.req('POST', `/v1/files?name=${name}`, { token, raw: bytes, headers: { 'content-type': 'text/plain' } });
  assert.is(up.status, 201, up.text);
  const r = await s.post(
    '/v1/messages',
    {
      target: { kind: 'room', room_id: 'general' },
      from: { type: 'agent', id: agent },
      parts: [
        { kind: 'text', text },
        { kind: 'file', file_id: up.body.file_id },
      ],
    },
    token,
  );
  assert.is(r.status, 200, r.text);
}

/** The relayed message with `text` on `s`, once it is there. */
const arrived = (s: TestServer, text: string): Promise<Json> =>
  eventually(
    async () => (await s.get('/v1/rooms/general/messages', TOKENS.admin.value)).body.messages.find((m: Json) => m.parts[0]?.text === text),
    WAIT,
    `"${text}" on ${s.networkId}`,
  );

t('a small file is carried with the message both ways: the peer serves its own copy to its readers', async ({ a, c }) => {
  const fromA = Buffer.from('a log from alpha\n'.repeat(1000));
  await sendFile(a, 'alpha', TOKENS.alphaOnly.value, 'alpha.log', fromA, 'alpha sends a log');
  const atC = await arrived(c, 'alpha sends a log');
  const part = atC.parts[1];
  assert.is(part.kind, 'file');
  assert.is(part.name, 'alpha.log');
  assert.is(part.size, fromA.length);
  const got = await c.req('GET', `/v1/files/${part.file_id}`, { token: GAMMA_ONLY.value });
  assert.is(got.status, 200);
  assert.is(got.text, fromA.toString());

  const fromC = Buffer.from('gamma answers with a file');
  await sendFile(c, 'gamma', GAMMA_ONLY.value, 'gamma.txt', fromC, 'gamma sends back');
  const atA = await arrived(a, 'gamma sends back');
  const back = await a.req('GET', `/v1/files/${atA.parts[1].file_id}`, { token: TOKENS.alphaOnly.value });
  assert.is(back.status, 200);
  assert.is(back.text, fromC.toString());
});

t('a file over the carried size reaches the peer as its name, type and size, without an id', async ({ a, c }) => {
  const big = Buffer.alloc(PAIRING_CARRY_BYTES + 1, 'x');
  await sendFile(a, 'alpha', TOKENS.alphaOnly.value, 'big.txt', big, 'alpha sends a big file');
  const atC = await arrived(c, 'alpha sends a big file');
  assert.equal(atC.parts[1], { kind: 'file', name: 'big.txt', content_type: 'text/plain', size: big.length });
});

t.run();
