// Files in relayed messages (#41 part 6), on two real networks paired directly over HTTP and
// through `svc relay`. A file of at most server.files.pairing_carry_bytes is carried with the
// message over a direct pairing (the peer stores its own copy). A larger one, and every file over
// a relay, is stored by the peer as a reference and fetched over the pairing's credential on its
// first download there: the same bytes and SHA-256, readable by the readers of the peer's message
// only, kept there afterwards (served with the home network stopped); a file not fetched yet while
// its home is stopped answers 502 bad_gateway. Both directions. The home network serves a peer
// only the files of messages relayed over that pairing.

import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendTo, editConfigFile } from '../../src/config/edit.js';
import { PAIRING_CARRY_BYTES } from '../../src/pairing/relay-files.js';
import { createRelayServer, RELAY_PATH } from '../../src/relay/server.js';
import { type AppServer, startApp } from '../helpers/app.js';
import { eventually, type Json, TOKENS } from '../helpers/server.js';

const PAIR_TOKEN = 'files-pair-secret-4c9e1a7b33';
const ADMIN = TOKENS.admin.value;
const ALPHA = TOKENS.alphaOnly.value;
const BETA = 'tok-betaonly-files-0123456789';
/** A reader on beta-net who is not a member of the private room. */
const GAMMA = 'tok-gammaonly-files-0123456789';
const WAIT = 20_000;
const BIG = 2 * 1024 * 1024;

const tokens = () => [
  ...Object.values(TOKENS).map((t) => ({ ...t, scopes: [...t.scopes], ...('agents' in t ? { agents: [...t.agents] } : {}) })),
  { id: 'beta-only', value: BETA, scopes: ['observe', 'write', 'attach'], agents: ['beta'] },
  { id: 'gamma-only', value: GAMMA, scopes: ['observe', 'write', 'attach'], agents: ['gamma'] },
  { id: 'ab', value: PAIR_TOKEN, scopes: ['pair'] },
];
/** `inner` is private and federated; `local` (alpha-net only) is not federated. */
const rooms = (mine: string, peer: string, federated: boolean) => [
  { id: 'inner', visibility: 'private', members: [mine, peer], ...(federated ? { federation: { pairings: ['ab'] } } : {}) },
  { id: 'local', visibility: 'private', members: [mine] },
];

interface Ctx {
  a: AppServer;
  b: AppServer;
  relay?: { url: string; stop: () => Promise<void> };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** Bytes that differ from test to test (a blob of each). */
const bytesOf = (seed: string, size: number) => {
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i += 32) createHash('sha256').update(`${seed}:${i}`).digest().copy(out, i);
  return out;
};

const connected = async (s: AppServer) =>
  ((await s.get('/v1/pairings', ADMIN)).body.pairings as Json[]).find((p) => p.id === 'ab')?.status === 'connected';

/** alpha-net and beta-net share the private `inner`: directly (A's pairing added once B listens) or through a relay. */
async function pair(ctx: Ctx): Promise<void> {
  const server = { pairing_check_interval_ms: 300 };
  const relay = ctx.relay ? { url: ctx.relay.url, room: 'files-relay-room-0123456789abcdef' } : undefined;
  ctx.a = await startApp({
    config: {
      network: { id: 'alpha-net', name: 'Alpha' },
      server,
      auth: { tokens: tokens() },
      rooms: rooms('alpha', 'beta-net:beta', relay !== undefined),
      ...(relay ? { pairings: [{ id: 'ab', remote_network_id: 'beta-net', token: PAIR_TOKEN, bound: true, relay }] } : {}),
    },
  });
  ctx.b = await startApp({
    config: {
      network: { id: 'beta-net', name: 'Beta' },
      server,
      auth: { tokens: tokens() },
      rooms: rooms('beta', 'alpha-net:alpha', true),
      pairings: [
        {
          id: 'ab',
          remote_network_id: 'alpha-net',
          token: PAIR_TOKEN,
          bound: true,
          ...(relay ? { relay } : { remote_base_url: ctx.a.url }),
        },
      ],
    },
  });
  if (!relay) {
    editConfigFile(ctx.a.configFile, (doc) => {
      appendTo(doc, ['pairings'], { id: 'ab', remote_network_id: 'beta-net', remote_base_url: ctx.b.url, token: PAIR_TOKEN, bound: true });
      doc.setIn(['rooms', 0, 'federation'], doc.createNode({ pairings: ['ab'] }));
    });
    await ctx.a.reload();
  }
  await eventually(() => connected(ctx.a), WAIT, 'A connected to B');
  await eventually(() => connected(ctx.b), WAIT, 'B connected to A');
}

/**
 * A raw POST over node:http. Through global fetch, a 2 MiB upload made after an earlier test of
 * this file stopped its apps was now and then reset (ECONNRESET) while the same upload on a fresh
 * connection was stored (201); the cause is not pinned down, so uploads here take node:http.
 */
function postBytes(s: AppServer, path: string, token: string, bytes: Buffer): Promise<{ status: number; text: string; body: Json }> {
  return new Promise((resolve, reject) => {
    const q = request(
      `${s.url}${path}`,
      { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, body: text ? JSON.parse(text) : undefined }));
      },
    );
    q.on('error', reject);
    q.end(bytes);
  });
}

/** Uploads `bytes` on `s` and sends them into `room` as `agent`; answers the local file id. */
async function sendFile(s: AppServer, agent: string, token: string, room: string, name: string, bytes: Buffer, text: string) {
  const up = await postBytes(s, `/v1/files?name=${name}`, token, bytes);
  assert.is(up.status, 201, up.text);
  const r = await s.post(
    '/v1/messages',
    {
      target: { kind: 'room', room_id: room },
      from: { type: 'agent', id: agent },
      parts: [
        { kind: 'text', text },
        { kind: 'file', file_id: up.body.file_id },
      ],
    },
    token,
  );
  assert.is(r.status, 200, r.text);
  return String(up.body.file_id);
}

/** The file part of the relayed message with `text` in `inner` on `s`, once it is there. */
const arrived = async (s: AppServer, text: string): Promise<Json> =>
  (
    await eventually(
      async () => (await s.get('/v1/rooms/inner/messages', ADMIN)).body.messages.find((m: Json) => m.parts[0]?.text === text),
      WAIT,
      `"${text}" on ${s.networkId}`,
    )
  ).parts[1];

/** A download: status, bytes, ETag and the error envelope. */
async function download(
  s: AppServer,
  id: string,
  token: string,
): Promise<{ status: number; bytes: Buffer; etag: string | null; json: Json }> {
  const res = await fetch(`${s.url}/v1/files/${id}`, { headers: { authorization: `Bearer ${token}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  const json = (res.headers.get('content-type') ?? '').startsWith('application/json') ? JSON.parse(bytes.toString()) : undefined;
  return { status: res.status, bytes, etag: res.headers.get('etag'), json };
}

/** A large file both ways, its access rule on the peer, then the home stopped: kept copies serve, others 502. */
async function byReference(ctx: Ctx): Promise<void> {
  const { a, b } = ctx;
  const fromA = bytesOf('alpha', BIG);
  const idA = await sendFile(a, 'alpha', ALPHA, 'inner', 'alpha.bin', fromA, 'alpha sends 2 MiB');
  const atB = await arrived(b, 'alpha sends 2 MiB');
  assert.equal(
    { ...atB, file_id: undefined },
    { kind: 'file', file_id: undefined, name: 'alpha.bin', content_type: 'application/octet-stream', size: BIG },
  );
  assert.ok(atB.file_id.startsWith('file_'), atB.file_id);
  assert.is.not(atB.file_id, idA, 'the peer names its own reference');

  const got = await download(b, atB.file_id, BETA);
  assert.is(got.status, 200, JSON.stringify(got.json));
  assert.is(got.bytes.length, BIG);
  assert.ok(got.bytes.equals(fromA), 'the same bytes');
  assert.is(sha(got.bytes), sha(fromA));
  assert.is(got.etag, `"${sha(fromA)}"`);
  // A reader of beta-net who may not read the message: as for a file that does not exist.
  const refused = await download(b, atB.file_id, GAMMA);
  assert.is(refused.status, 404);
  assert.is(refused.json.code, 'not_found');
  assert.is(
    (await download(b, 'file_doesnotexist', GAMMA)).json.error.replace('file_doesnotexist', 'X'),
    refused.json.error.replace(atB.file_id, 'X'),
  );

  // The home network gives its peer only the files of messages relayed over the pairing.
  const route = (id: string, token: string) => a.req('GET', `/v1/pairing/files/${id}`, { token });
  assert.is((await route(idA, PAIR_TOKEN)).status, 200);
  assert.is((await route(idA, ADMIN)).status, 403, 'only a pair credential');
  const kept = await sendFile(a, 'alpha', ALPHA, 'local', 'local.txt', Buffer.from('not federated'), 'stays home');
  assert.is((await route(kept, PAIR_TOKEN)).status, 404, 'a file of a room the pairing does not federate');
  const draft = await a.req('POST', '/v1/files?name=draft.txt', {
    token: ALPHA,
    raw: 'never sent',
    headers: { 'content-type': 'text/plain' },
  });
  assert.is((await route(draft.body.file_id, PAIR_TOKEN)).status, 404, 'an upload no message references');

  // The other way.
  const fromB = bytesOf('beta', BIG);
  await sendFile(b, 'beta', BETA, 'inner', 'beta.bin', fromB, 'beta sends 2 MiB');
  const atA = await arrived(a, 'beta sends 2 MiB');
  const back = await download(a, atA.file_id, ALPHA);
  assert.is(back.status, 200, JSON.stringify(back.json));
  assert.ok(back.bytes.equals(fromB));

  // A file that came from beta-net, sent on by alpha-net in a message of its own: its metadata only
  // (a network passes on no file of another, neither bytes nor a reference).
  const onward = await a.post(
    '/v1/messages',
    {
      target: { kind: 'room', room_id: 'inner' },
      from: { type: 'agent', id: 'alpha' },
      parts: [
        { kind: 'text', text: 'alpha passes it on' },
        { kind: 'file', file_id: atA.file_id },
      ],
    },
    ALPHA,
  );
  assert.is(onward.status, 200, onward.text);
  assert.equal(await arrived(b, 'alpha passes it on'), {
    kind: 'file',
    name: 'beta.bin',
    content_type: 'application/octet-stream',
    size: BIG,
  });

  // A file not fetched yet, then alpha-net stops.
  const later = bytesOf('later', BIG);
  await sendFile(a, 'alpha', ALPHA, 'inner', 'later.bin', later, 'alpha sends another');
  const laterAtB = await arrived(b, 'alpha sends another');
  await a.stop();
  const again = await download(b, atB.file_id, BETA);
  assert.is(again.status, 200, 'the fetched copy is served from beta-net');
  assert.ok(again.bytes.equals(fromA));
  const away = await download(b, laterAtB.file_id, BETA);
  assert.is(away.status, 502, JSON.stringify(away.json));
  assert.is(away.json.code, 'bad_gateway');
  assert.match(away.json.error, /could not be fetched from network alpha-net/);
  // Still a reference: once alpha-net is back, it is fetched (not tested here: a restarted app listens elsewhere).
  assert.is((await download(b, laterAtB.file_id, GAMMA)).status, 404, 'the access rule comes first');
}

const direct = suite<Ctx>('files in messages relayed over a direct pairing');
direct.before.each(async (ctx) => {
  ctx.relay = undefined;
  await pair(ctx);
});
direct.after.each(async (ctx) => {
  await ctx.b?.dispose();
  await ctx.a?.dispose();
});

direct('a small file is carried with the message both ways: the peer serves its own copy to its readers', async ({ a, b }) => {
  const fromA = Buffer.from('a log from alpha\n'.repeat(1000));
  await sendFile(a, 'alpha', ALPHA, 'inner', 'alpha.log', fromA, 'alpha sends a log');
  const atB = await arrived(b, 'alpha sends a log');
  assert.is(atB.name, 'alpha.log');
  assert.is(atB.size, fromA.length);
  assert.ok(!atB.file_id.startsWith('file_r'), 'a carried copy, not a reference');
  await a.stop();
  const got = await download(b, atB.file_id, BETA);
  assert.is(got.status, 200, 'carried: served without its home');
  assert.ok(got.bytes.equals(fromA));
  assert.is((await download(b, atB.file_id, GAMMA)).status, 404);
});

direct('a peer naming the hash of a file kept here gets nothing of it: the bytes must come from the peer', async ({ a, b }) => {
  // A private file of beta-net that alpha-net never had.
  const secret = Buffer.from('beta-net only\n'.repeat(50));
  await sendFile(b, 'beta', BETA, 'local', 'secret.txt', secret, 'kept at home');
  // A relayed message as a dishonest peer would send it (its pair token), naming that hash.
  const forged = await b.post(
    '/v1/messages',
    {
      target: { kind: 'room', room_id: 'inner' },
      from: { type: 'agent', id: 'alpha', network_id: 'alpha-net' },
      parts: [
        { kind: 'text', text: 'forged' },
        {
          kind: 'file',
          name: 'x.txt',
          content_type: 'text/plain',
          size: secret.length,
          origin_file: { file_id: 'file_nosuchfile0', sha256: sha(secret) },
        },
      ],
      origin: { network_id: 'alpha-net', message_id: 'msg_forged0001' },
    },
    PAIR_TOKEN,
  );
  assert.is(forged.status, 200, forged.text);
  const part = await arrived(b, 'forged');
  const got = await download(b, part.file_id, BETA);
  assert.is(got.status, 502, 'alpha-net has no such file: nothing is served');
  assert.is(got.json.code, 'bad_gateway');
  assert.ok(!got.bytes.includes(Buffer.from('beta-net only')));
  assert.is((await a.req('GET', '/v1/pairing/files/file_nosuchfile0', { token: PAIR_TOKEN })).status, 404);
});

direct('an edit of a message with files reaches the peer, whose copy keeps its own files', async ({ a, b }) => {
  const small = Buffer.from('carried with the message\n'.repeat(100));
  const big = bytesOf('edited', BIG);
  const ids: string[] = [];
  for (const [name, bytes] of [
    ['small.txt', small],
    ['big.bin', big],
  ] as const) {
    const up = await postBytes(a, `/v1/files?name=${name}`, ALPHA, bytes);
    assert.is(up.status, 201, up.text);
    ids.push(String(up.body.file_id));
  }
  const files = ids.map((file_id) => ({ kind: 'file', file_id }));
  const sent = await a.post(
    '/v1/messages',
    {
      target: { kind: 'room', room_id: 'inner' },
      from: { type: 'agent', id: 'alpha' },
      parts: [{ kind: 'text', text: 'before the edit' }, ...files],
    },
    ALPHA,
  );
  assert.is(sent.status, 200, sent.text);
  const atB = async (text: string) =>
    eventually(
      async () => (await b.get('/v1/rooms/inner/messages', ADMIN)).body.messages.find((m: Json) => m.parts[0]?.text === text),
      WAIT,
      `"${text}" on beta-net`,
    );
  const before = await atB('before the edit');
  assert.ok(!before.parts[1].file_id.startsWith('file_r') && before.parts[2].file_id.startsWith('file_r'), 'one carried, one by reference');

  // Edited at home, naming its files by their ids there, as any edit does.
  const edit = await a.req('PATCH', `/v1/messages/${before.id}`, {
    token: ALPHA,
    body: { from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text: 'after the edit' }, ...files] },
  });
  assert.is(edit.status, 200, edit.text);
  const after = await atB('after the edit');
  assert.is(after.id, before.id);
  assert.equal(after.parts.slice(1), before.parts.slice(1), "the peer's copy keeps its own files");
  const got = await download(b, after.parts[2].file_id, BETA);
  assert.is(got.status, 200, JSON.stringify(got.json));
  assert.ok(got.bytes.equals(big));
});

direct(`a file over ${PAIRING_CARRY_BYTES} bytes goes by reference and is fetched on its first download, both ways`, byReference);
direct.run();

const relayed = suite<Ctx>('files in messages relayed through svc relay');
relayed.before.each(async (ctx) => {
  const relay = createRelayServer();
  const addr = await relay.listen('127.0.0.1:0');
  ctx.relay = { url: `ws://127.0.0.1:${addr.port}${RELAY_PATH}`, stop: () => relay.close() };
  await pair(ctx);
});
relayed.after.each(async (ctx) => {
  await ctx.b?.dispose();
  await ctx.a?.dispose();
  await ctx.relay?.stop();
});

relayed('every file goes by reference over a relay and is fetched in chunks on its first download, both ways', byReference);
relayed.run();
