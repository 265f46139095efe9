// Online backup and restore (#40 part 6), with real sqlite files: a backup taken while writers
// send, restored into a fresh folder, holds every message acknowledged before the backup answered
// (each writer's messages are a prefix: the copy is one consistent state); restore refuses another
// network's backup (another id, or the same id and another uid than the store in its place) and a
// store that holds data without --force, and a running server's store; a Postgres or memory store
// answers a clear 409; doctor shows the last backup. The source server is a `svc serve` process
// (its exit code, and the store lock a restore meets while it runs); the others run in the test
// process, found by the CLI through their runtime files.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { startApp } from '../helpers/app.js';
import { freshSchema } from '../helpers/pg.js';
import { startPgApp } from '../helpers/pg-server.js';
import {
  roomMessage,
  startServer,
  tempDir,
  testConfig,
  TOKENS,
  writeConfig,
  type HttpServer,
  type Json,
  type TestServer,
} from '../helpers/server.js';

const ADMIN = TOKENS.admin.value;
const ROOMS = [{ id: 'general', members: ['alpha'] }];
/** Small, so that checkpoints run while the writers send (and the backup must wait for one). */
const STORE = { backend: 'sqlite', path: '.svc/svc.db', checkpoint_bytes: 16_384 };
const WRITERS = 3;
/** The operator token, as an operator passes it (the environment keeps it out of ps). */
const AS_ADMIN = { env: { SVC_TOKEN: ADMIN } };

const t = suite('online backup and restore (sqlite)');

/** Every message id of a room's history, oldest first. */
async function roomIds(s: HttpServer, room: string): Promise<string[]> {
  const pages: string[][] = [];
  let before: string | undefined;
  for (;;) {
    const r = await s.get(`/v1/rooms/${room}/messages?limit=500${before ? `&before=${before}` : ''}`, ADMIN);
    assert.is(r.status, 200, r.text);
    pages.unshift((r.body.messages as Json[]).map((m) => m.id as string));
    if (!r.body.page?.has_more) break;
    before = r.body.page.next_before;
  }
  return pages.flat();
}

/** Writers that each send one message at a time, recording the acknowledged ids in order. */
function startWriters(s: HttpServer): { acked: string[][]; stop: () => Promise<void> } {
  const acked: string[][] = Array.from({ length: WRITERS }, () => []);
  let running = true;
  const loops = acked.map(async (mine, w) => {
    for (let i = 0; running; i++) {
      const r = await s.post(
        '/v1/messages',
        roomMessage('general', 'alpha', `writer ${w} message ${i} ${'x'.repeat(200)}`),
        TOKENS.alphaOnly.value,
      );
      assert.is(r.status, 200, r.text);
      mine.push(r.body.message_id as string);
    }
  });
  return {
    acked,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
};

/** A fresh folder with the test config (network testnet unless given), for a restore. */
function freshConfig(network = 'testnet'): { dir: string; file: string } {
  const dir = tempDir();
  return { dir, file: writeConfig(dir, testConfig({ network: { id: network, name: network }, store: STORE, rooms: ROOMS })) };
}

let source: TestServer;
let backupDir: string;
/** Per writer: how many messages were acknowledged when the backup answered. */
let ackedAtAnswer: number[] = [];
let acked: string[][] = [];

t.before(async () => {
  // The copy pauses after the tail's first pass: writes land between it and the final step.
  source = await startServer({ config: { store: STORE, rooms: ROOMS }, env: { SVC_FAULT_BACKUP_PAUSE_MS: '500' } });
});
t.after(async () => {
  await source?.dispose();
});

t('a backup taken while writers send holds every message acknowledged before it answered', async () => {
  const writers = startWriters(source);
  acked = writers.acked;
  await until(() => acked.every((a) => a.length >= 40));
  backupDir = path.join(tempDir(), 'backup');
  const atAsk = acked.reduce((n, a) => n + a.length, 0);
  const r = await source.post('/v1/backup', { dir: backupDir }, ADMIN);
  ackedAtAnswer = acked.map((a) => a.length);
  assert.is(r.status, 200, r.text);
  // Writes were acknowledged while the backup ran (it stops none for long).
  assert.ok(ackedAtAnswer.reduce((n, k) => n + k, 0) - atAsk >= WRITERS, `${atAsk} -> ${ackedAtAnswer}`);
  // Writes went on after it: the restore must not need them.
  const after = ackedAtAnswer.reduce((n, k) => n + k, 0);
  await until(() => acked.reduce((n, a) => n + a.length, 0) >= after + 30);
  await writers.stop();
  assert.is(r.body.network_id, 'testnet');
  assert.is(r.body.dir, backupDir);
  assert.ok(
    r.body.files.some((f: Json) => f.name === 'svc.db'),
    JSON.stringify(r.body.files),
  );
  const manifest = JSON.parse(readFileSync(path.join(backupDir, 'backup.json'), 'utf8'));
  assert.is(manifest.format, 1);
  assert.is(manifest.network_uid, r.body.network_uid);
  assert.ok(manifest.network_uid, 'the network uid is kept');
  assert.is(await source.stop(), 0);

  const fresh = freshConfig();
  const restored = await cli(['restore', backupDir, '--config', fresh.file]);
  assert.is(restored.code, 0, restored.stderr);
  assert.match(restored.stdout, /restored the backup of network testnet/);
  // The manifest names the last event seq the copy holds: the restored store's last, exactly.
  assert.ok(Number.isInteger(manifest.last_seq) && manifest.last_seq > 0, `last_seq ${manifest.last_seq}`);
  assert.is(r.body.last_seq, manifest.last_seq);
  assert.match(restored.stdout, new RegExp(`last event seq ${manifest.last_seq}\\b`));
  const s = await startApp({ dir: fresh.dir, keepConfig: true });
  try {
    const ids = new Set(await roomIds(s, 'general'));
    for (let w = 0; w < WRITERS; w++) {
      const mine = acked[w]!;
      // One consistent state: each writer's messages up to some point, with no hole.
      let k = 0;
      while (k < mine.length && ids.has(mine[k]!)) k++;
      for (const id of mine.slice(k)) assert.not.ok(ids.has(id), `writer ${w}: ${id} present after a missing one`);
      // Every message acknowledged before the answer is there. A writer has one send in flight, so
      // at most its last acknowledgement seen before the answer may have been sent after it.
      assert.ok(k >= ackedAtAnswer[w]! - 1, `writer ${w}: ${k} of ${ackedAtAnswer[w]} acknowledged messages restored`);
    }
    // The uid came back with the store: clients keep their tokens for the same network.
    const net = await s.get('/v1/network', ADMIN);
    assert.is(net.body.uid, manifest.network_uid);
  } finally {
    await s.dispose();
  }
});

t('restore refuses a backup of another network, and a store that holds data, without --force', async () => {
  const other = freshConfig('othernet');
  const refused = await cli(['restore', backupDir, '--config', other.file]);
  assert.is(refused.code, 1, refused.stdout);
  assert.match(refused.stderr, /the backup is of network testnet, the config's network is othernet; pass --force/);
  assert.not.ok(existsSync(path.join(other.dir, '.svc/svc.db')), 'nothing restored');
  const forced = await cli(['restore', backupDir, '--config', other.file, '--force']);
  assert.is(forced.code, 0, forced.stderr);
  // Now it holds data: a second restore is refused, then --force keeps the old files aside.
  const again = await cli(['restore', backupDir, '--config', other.file, '--force', '--json']);
  assert.is(again.code, 0, again.stderr);
  const out = JSON.parse(again.stdout);
  assert.ok(existsSync(path.join(out.moved_aside, 'svc.db')), again.stdout);
  // A folder without backup.json (a backup that did not finish, or none) is refused.
  const notBackup = await cli(['restore', tempDir(), '--config', freshConfig().file]);
  assert.is(notBackup.code, 1, notBackup.stdout);
  assert.match(notBackup.stderr, /holds no backup\.json: not a backup written by svc backup/);
  const held = await cli(['restore', backupDir, '--config', source.configFile]);
  assert.is(held.code, 1);
  assert.match(held.stderr, /already holds a store .* pass --force/);
});

t("restore refuses, without --force, a backup of another network that shares the id of the store's", async () => {
  // A network also called testnet, with a store of its own (and so its own uid): started once.
  const twin = freshConfig();
  const s = await startApp({ dir: twin.dir, keepConfig: true });
  const twinUid = (await s.get('/v1/network', ADMIN)).body.uid as string;
  await s.dispose();
  const manifest = JSON.parse(readFileSync(path.join(backupDir, 'backup.json'), 'utf8'));
  assert.ok(twinUid && twinUid !== manifest.network_uid, `${twinUid} / ${manifest.network_uid}`);
  const refused = await cli(['restore', backupDir, '--config', twin.file]);
  assert.is(refused.code, 1, refused.stdout);
  assert.match(
    refused.stderr,
    new RegExp(`with uid ${manifest.network_uid}, the store at .* is network uid ${twinUid}: another network .* pass --force`),
  );
  const forced = await cli(['restore', backupDir, '--config', twin.file, '--force', '--json']);
  assert.is(forced.code, 0, forced.stderr);
  assert.ok(existsSync(path.join(JSON.parse(forced.stdout).moved_aside, 'svc.db')), forced.stdout);
});

t('restore refuses while a server runs on the store', async () => {
  await source.restart();
  const r = await cli(['restore', backupDir, '--config', source.configFile, '--force']);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /svc restore: .*(running|in use|held|lock)/i);
});

t('svc backup through the CLI, and svc doctor shows the last backup', async () => {
  const before = await cli(['doctor', '--json', '--config', freshConfig().file]);
  const none = JSON.parse(before.stdout).checks.find((c: Json) => c.check === 'last backup');
  assert.is(none?.status, 'info', before.stdout);
  assert.match(none.message, /none taken yet/);

  const dir = path.join(tempDir(), 'cli-backup');
  const r = await cli(['backup', dir, '--config', source.configFile], AS_ADMIN);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`backed up network testnet into ${dir}: `));
  const doctor = await cli(['doctor', '--json', '--config', source.configFile]);
  const last = JSON.parse(doctor.stdout).checks.find((c: Json) => c.check === 'last backup');
  assert.is(last?.status, 'ok', doctor.stdout);
  assert.ok(last.message.includes(dir), last.message);
  // A folder that is not empty, and a relative path, are refused.
  const again = await cli(['backup', dir, '--config', source.configFile], AS_ADMIN);
  assert.is(again.code, 1);
  assert.match(again.stderr, /is not empty/);
  const rel = await source.post('/v1/backup', { dir: 'relative/dir' }, ADMIN);
  assert.is(rel.status, 400, rel.text);
  assert.match(rel.body.error, /not an absolute path/);
  const file = path.join(tempDir(), 'a-file');
  writeFileSync(file, 'x');
  const notDir = await source.post('/v1/backup', { dir: file }, ADMIN);
  assert.is(notDir.status, 400, notDir.text);
  const noAdmin = await source.post('/v1/backup', { dir: path.join(tempDir(), 'w') }, TOKENS.writer.value);
  assert.is(noAdmin.status, 403, noAdmin.text);
});

t('a memory store answers 409, through HTTP and the CLI', async () => {
  const app = await startApp({ config: { store: { backend: 'memory' } } });
  try {
    const dir = path.join(tempDir(), 'b');
    const r = await app.post('/v1/backup', { dir }, ADMIN);
    assert.is(r.status, 409, r.text);
    assert.match(r.body.error, /store is memory .*docs\/operations\.md/);
    assert.not.ok(existsSync(dir), 'no folder made');
    const c = await cli(['backup', path.join(tempDir(), 'b'), '--config', app.configFile], AS_ADMIN);
    assert.is(c.code, 1);
    assert.match(c.stderr, /sqlite store; this server's store is memory/);
  } finally {
    await app.dispose();
  }
});

t('a Postgres store answers 409 naming its own tools', async () => {
  const pgs = await freshSchema();
  const s = await startPgApp(pgs);
  try {
    const dir = path.join(tempDir(), 'pg');
    mkdirSync(dir);
    const r = await s.post('/v1/backup', { dir }, ADMIN);
    assert.is(r.status, 409, r.text);
    assert.match(r.body.error, /store is postgres: back Postgres up with its own tools \(pg_dump, pg_basebackup\)/);
  } finally {
    await s.dispose();
    await pgs.drop();
  }
});

t.run();
