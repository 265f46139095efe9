// A record damaged in the middle of the journal (not a torn tail): the server must refuse to start
// without cutting anything, and `svc store recover` must keep every intact record.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, TOKENS, roomMessage, type TestServer } from '../helpers/server.js';
import { cli } from '../helpers/cli.js';
import { allMessages } from './harness.js';

const ADMIN = TOKENS.admin.value;

const t = suite<{ s: TestServer }>('a server restarted on a journal damaged in the middle');
t.before(async (ctx) => {
  ctx.s = await startServer({ config: { server: { loop_guard: { enabled: false } } } });
  assert.is((await ctx.s.post('/v1/rooms', { id: 'r0', name: 'r0', members: ['a0'] }, ADMIN)).status, 200);
});
t.after(async (ctx) => ctx.s.dispose());

function journal(s: TestServer): string {
  const dir = path.join(s.dir, '.svc');
  const names = readdirSync(dir).filter((n) => /^svc\.db\.journal\.\d+$/.test(n));
  assert.is(names.length, 1, `journals: ${names}`);
  return path.join(dir, names[0]!);
}

t('refuses to start and truncates nothing, then recovers every intact record with a copy of the original', async ({ s }) => {
  const sent: string[] = [];
  for (let i = 1; i <= 100; i++) {
    const id = `m${i}`;
    const r = await s.post('/v1/messages', roomMessage('r0', 'a0', `text of ${id} end`, { id }), ADMIN);
    assert.is(r.status, 200, r.text);
    sent.push(id);
  }
  await s.kill9();

  // Change 7 bytes inside the record of m11, in the middle of the journal.
  const file = journal(s);
  const original = readFileSync(file);
  const text = original.toString('latin1');
  const at = text.indexOf('text of m11 end');
  assert.ok(at > 0);
  const damaged = Buffer.from(`${text.slice(0, at)}TEXT OF${text.slice(at + 7)}`, 'latin1');
  assert.is(damaged.length, original.length);
  writeFileSync(file, damaged);

  const err = await s.restart().then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  assert.ok(err, 'the server must not start on a damaged journal');
  assert.match(err!.message, /checksum mismatch/);
  assert.match(err!.message, /intact record\(s\) follow/);
  assert.match(err!.message, /svc store recover/);
  assert.not.match(err!.message, /at [\w./]+\.js:\d+/); // a message, not a stack trace
  assert.equal(readFileSync(file), damaged, 'the journal must be left as it was');

  const r = await cli(['store', 'recover', '--config', s.configFile], { cwd: s.dir });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /kept \d+ intact record\(s\), skipped record \d+/);
  const copies = readdirSync(path.dirname(file)).filter((n) => n.includes('.damaged-'));
  assert.is(copies.length, 1);
  assert.equal(readFileSync(path.join(path.dirname(file), copies[0]!)), damaged);

  await s.restart();
  const ids = (await allMessages(s, '/v1/rooms/r0/messages')).map((m) => m.id);
  assert.equal(
    ids,
    sent.filter((id) => id !== 'm11'),
  );
  // A retry of the lost send stores it again.
  const again = await s.post('/v1/messages', roomMessage('r0', 'a0', 'text of m11 end', { id: 'm11' }), ADMIN);
  assert.is(again.status, 200, again.text);
  // The running server holds the store: recover waits for it to stop.
  const busy = await cli(['store', 'recover', '--config', s.configFile], { cwd: s.dir });
  assert.is(busy.code, 1);
  assert.match(busy.stderr, /is in use by svc serve \(pid \d+ /);
  assert.is(await s.stop(), 0);
  const r2 = await cli(['store', 'recover', '--config', s.configFile], { cwd: s.dir });
  assert.match(r2.stdout, /nothing changed/);
});

t.run();
