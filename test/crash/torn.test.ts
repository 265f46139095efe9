// A journal whose tail was torn by a crash: a half-written record, a cut last record, garbage.
// The server must open every time, keep every complete record, and let an unacknowledged send be
// retried into exactly one message.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, readFileSync, readdirSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { startServer, TOKENS, roomMessage, type TestServer } from '../helpers/server.js';
import { allMessages } from './harness.js';

const ADMIN = TOKENS.admin.value;

interface Ctx {
  s: TestServer;
  /** ids the server acknowledged and that must survive */
  kept: string[];
}

const t = suite<Ctx>('a server restarted on a torn journal tail');
t.before(async (ctx) => {
  ctx.s = await startServer({ config: { server: { loop_guard: { enabled: false } } } });
  assert.is((await ctx.s.post('/v1/rooms', { id: 'r0', name: 'r0', members: ['a0'] }, ADMIN)).status, 200);
  ctx.kept = [];
  for (let i = 1; i <= 10; i++) await send(ctx.s, `m${i}`, ctx.kept);
});
t.after(async (ctx) => ctx.s.dispose());

async function send(s: TestServer, id: string, kept?: string[]): Promise<void> {
  const r = await s.post('/v1/messages', roomMessage('r0', 'a0', `text of ${id}`, { id }), ADMIN);
  assert.is(r.status, 200, r.text);
  assert.is(r.body.message_id, id);
  kept?.push(id);
}

/** The newest journal file of the server's store. */
function journal(s: TestServer): string {
  const dir = path.join(s.dir, '.svc');
  const names = readdirSync(dir).filter((n) => /^svc\.db\.journal\.\d+$/.test(n));
  names.sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
  return path.join(dir, names[names.length - 1]!);
}

async function ids(s: TestServer): Promise<string[]> {
  return (await allMessages(s, '/v1/rooms/r0/messages')).map((m) => m.id);
}

t('drops a half-written record, keeps the rest and truncates the file', async ({ s, kept }) => {
  await s.kill9();
  const file = journal(s);
  const bytes = readFileSync(file);
  const lines = bytes.toString('utf8').split('\n').filter(Boolean);
  const last = Buffer.from(`${lines[lines.length - 1]}\n`);
  appendFileSync(file, last.subarray(0, last.length >> 1));
  await s.restart();
  assert.match(s.output(), /torn/);
  assert.equal(await ids(s), kept);
  assert.is(statSync(file).size, bytes.length);
  // Written after the cut; the next test's kill and restart check it replays.
  await send(s, 'm11', kept);
});

t('loses only a cut last record, and a retry of that send converges to one message', async ({ s, kept }) => {
  await send(s, 'm12');
  await s.kill9();
  const file = journal(s);
  const size = statSync(file).size;
  truncateSync(file, size - 40); // the record of m12, which (in this story) was never acknowledged
  await s.restart();
  // kept holds m11, written after the previous test's torn tail was cut: it survived this kill.
  assert.equal(await ids(s), kept);
  await send(s, 'm12', kept);
  await send(s, 'm12'); // and once more: still one message, after the next test's kill as well
  assert.equal(await ids(s), kept);
});

t('ignores garbage and a record with a bad checksum after the last complete record', async ({ s, kept }) => {
  await s.kill9();
  const file = journal(s);
  appendFileSync(file, Buffer.concat([Buffer.from('deadbeef\t{"ops":[]}\n'), Buffer.from([0xff, 0xfe, 0x00, 0x0a, 0x41])]));
  await s.restart();
  // kept holds m12 once, retried before this kill.
  assert.equal(await ids(s), kept);
  await send(s, 'm13', kept);
  await s.restart();
  assert.equal(await ids(s), kept);
});

t.run();
