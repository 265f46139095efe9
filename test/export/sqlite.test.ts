// Export and import on sqlite (#40 part 5), through the `svc` CLI: a network exported from a
// running server, imported into an empty store and exported again gives the same lines (the
// header's time aside) and serves the same reads; agent tokens work after a --with-secrets round
// trip and not after one without; import refuses a store that holds a network, a truncated, a
// damaged and a newer file, each naming the line, and leaves no store behind; the route is the
// operator's. The servers run in the test process (the CLI finds them by their runtime files),
// but for the `svc serve` process whose store lock an import meets.

import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { cleanEnv, cli, scriptBin } from '../helpers/cli.js';
import { startApp, type AppServer } from '../helpers/app.js';
import { startServer, SVC_BIN, tempDir, testConfig, TOKENS, writeConfig } from '../helpers/server.js';
import { ADMIN, comparable, CONFIG, exportTo, fill, linesOf, ofType, reads } from './fixture.js';

const t = suite('svc export and svc import (sqlite)');

let source: AppServer;
let gen: string;
let before: unknown;
let work: string;
let plain: string[];
let secret: string[];

t.before(async () => {
  source = await startApp({ config: CONFIG });
  gen = await fill(source);
  before = await reads(source);
  work = tempDir();
});
t.after(async () => {
  await source?.dispose();
});

/** A new folder whose config is the test config (store .svc/svc.db, not there yet). */
function emptyTarget(): { dir: string; config: string } {
  const dir = tempDir();
  return { dir, config: writeConfig(dir, testConfig(CONFIG)) };
}

t('the export is the documented format: header, records, end line with the counts', async () => {
  plain = await exportTo(source.configFile, path.join(work, 'plain.jsonl'));
  const header = JSON.parse(plain[0]!);
  assert.equal(Object.keys(header)[0], 'type');
  assert.is(header.type, 'svc-export');
  assert.is(header.format, 1);
  assert.is(header.network_id, 'testnet');
  assert.match(header.network_uid, /^nuid_/);
  assert.is(header.with_secrets, false);
  assert.is(header.messages, 6);
  const end = JSON.parse(plain[plain.length - 1]!);
  assert.is(end.type, 'end');
  assert.is(end.counts.message, 6);
  assert.is(end.counts.room, 2);
  // The earlier version of the edited message, the tombstone, the reaction and the receipt are there.
  const edited = ofType(plain, 'message').find((m) => m.message.parts?.[0]?.text === 'hello again @alpha');
  assert.is(edited.versions.length, 1);
  assert.is(edited.versions[0].parts[0].text, 'hello @alpha');
  assert.ok(
    ofType(plain, 'message').some((m) => m.message.deleted_at !== undefined),
    'a tombstone',
  );
  assert.is(ofType(plain, 'reactions').length, 1);
  assert.ok(ofType(plain, 'receipts').length >= 1, 'a receipt');
  assert.equal(ofType(plain, 'room').find((r) => r.room.id === 'hidden').room.retention, { max_age: '30d' });
  // Without secrets an agent's token hash is withheld, and no OAuth state goes out.
  assert.is(ofType(plain, 'agent').find((a) => a.agent.id === 'gen').agent.credential_key, 'withheld');
  assert.ok(ofType(plain, 'kv').every((k) => k.entry.kind === 'network'));
  // Every key in code-point order after `type`.
  for (const l of plain) {
    const keys = Object.keys(JSON.parse(l)).slice(1);
    assert.equal(keys, [...keys].sort(), l);
  }
});

t('with --with-secrets the agent keeps its token hash', async () => {
  secret = await exportTo(source.configFile, path.join(work, 'secret.jsonl'), ['--with-secrets']);
  assert.is(JSON.parse(secret[0]!).with_secrets, true);
  assert.match(ofType(secret, 'agent').find((a) => a.agent.id === 'gen').agent.credential_key, /^agent:[0-9a-f]{64}$/);
});

t('a progress bar on stderr only when it is a terminal; stdout by default', async () => {
  const command = `'${process.execPath}' '${SVC_BIN}' export --config '${source.configFile}' -o '${path.join(work, 'tty.jsonl')}'`;
  // Not spawnSync: the server answers from this process's event loop.
  const tty = await new Promise<{ status: number | null; stdout: string }>((resolve, reject) => {
    const p = spawn(scriptBin(), ['-qfec', command, '/dev/null'], {
      env: cleanEnv({ TERM: 'xterm', SVC_TOKEN: ADMIN }),
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let stdout = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.once('error', reject);
    p.once('close', (status) => resolve({ status, stdout }));
    p.stdin.end();
  });
  assert.is(tty.status, 0, tty.stdout);
  assert.match(tty.stdout, /\[#{30}\] 6\/6 messages, \d+\/s/);
  const piped = await cli(['export', '--config', source.configFile], { env: { SVC_TOKEN: ADMIN } });
  assert.is(piped.code, 0, piped.stderr);
  assert.is(piped.stderr, '');
  assert.equal(comparable(piped.stdout.slice(0, -1).split('\n')), comparable(plain));
});

t("the route is the operator's, and with_secrets is true or false", async () => {
  for (const tok of [TOKENS.observer.value, TOKENS.writer.value, gen]) {
    const r = await source.get('/v1/export', tok);
    assert.is(r.status, 403, r.text);
  }
  const bad = await source.get('/v1/export?with_secrets=yes', ADMIN);
  assert.is(bad.status, 400);
  assert.match(bad.text, /query\.with_secrets: must be true or false/);
  const denied = await cli(['export', '--config', source.configFile], { env: { SVC_TOKEN: TOKENS.writer.value } });
  assert.is(denied.code, 1);
  assert.match(denied.stderr, /403/);
});

t('export, import into an empty store, export again: the same lines; the same reads', async () => {
  await source.stop();
  const target = emptyTarget();
  const r = await cli(['import', path.join(work, 'plain.jsonl'), '--config', target.config]);
  assert.is(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^imported network testnet into \S+svc\.db: 2 rooms, 2 agents, 6 messages, 1 threads, 1 DMs, 0 artifacts, \d+ events \(last seq \d+\), 0 files in [\d.]+ s\n$/,
  );
  const again = await startApp({ dir: target.dir, config: CONFIG });
  try {
    assert.equal(await reads(again), before);
    const lines = await exportTo(again.configFile, path.join(work, 'again.jsonl'));
    assert.equal(comparable(lines), comparable(plain));
    // Imported without secrets: the agent's old token is no credential any more.
    const r2 = await again.get('/v1/rooms/hidden/messages', gen);
    assert.is(r2.status, 401, r2.text);
  } finally {
    await again.dispose();
  }
});

t('after a --with-secrets round trip the agent token works', async () => {
  const target = emptyTarget();
  const r = await cli(['import', path.join(work, 'secret.jsonl'), '--config', target.config]);
  assert.is(r.code, 0, r.stderr);
  const again = await startApp({ dir: target.dir, config: CONFIG });
  try {
    const hidden = await again.get('/v1/rooms/hidden/messages', gen);
    assert.is(hidden.status, 200, hidden.text);
    const sent = await again.post(
      '/v1/messages',
      { target: { kind: 'room', room_id: 'general' }, from: { type: 'agent', id: 'gen' }, parts: [{ kind: 'text', text: 'moved' }] },
      gen,
    );
    assert.is(sent.status, 200, sent.text);
    const lines = await exportTo(again.configFile, path.join(work, 'secret-again.jsonl'), ['--with-secrets']);
    assert.is(ofType(lines, 'message').length, 7);
  } finally {
    await again.dispose();
  }
});

/** Imports `lines` into a fresh folder; answers the result and whether a store was left there. */
async function importLines(lines: string[]): Promise<{ code: number | null; stderr: string; left: boolean }> {
  const target = emptyTarget();
  const file = path.join(work, `bad-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  const r = await cli(['import', file, '--config', target.config]);
  return { code: r.code, stderr: r.stderr, left: existsSync(path.join(target.dir, '.svc', 'svc.db')) };
}

t('import refuses a truncated file, naming where it ends, and leaves no store', async () => {
  const r = await importLines(plain.slice(0, -3));
  assert.is(r.code, 1);
  assert.match(r.stderr, new RegExp(`the file ends at line ${plain.length - 3} without its end line: it is truncated`));
  assert.match(r.stderr, /nothing was imported/);
  assert.not.ok(r.left);
});

t('import refuses a damaged line, naming it', async () => {
  const damaged = [...plain];
  damaged[3] = damaged[3]!.slice(0, 20);
  const r = await importLines(damaged);
  assert.is(r.code, 1);
  assert.match(r.stderr, /line 4: not JSON/);
  assert.not.ok(r.left);
  const miscounted = [...plain];
  miscounted[miscounted.length - 1] = miscounted[miscounted.length - 1]!.replace('"message":6', '"message":7');
  const m = await importLines(miscounted);
  assert.is(m.code, 1);
  assert.match(m.stderr, new RegExp(`line ${plain.length}: the end line counts 7 message lines, the file holds 6`));
  assert.not.ok(m.left);
});

t('import refuses a newer format with the way out', async () => {
  const newer = [plain[0]!.replace('"format":1', '"format":2'), ...plain.slice(1)];
  const r = await importLines(newer);
  assert.is(r.code, 1);
  assert.match(
    r.stderr,
    /line 1: the file is in export format 2 \(written by svc \S+\); this svc reads format 1 and older: import it with a newer svc/,
  );
  assert.not.ok(r.left);
});

t("import refuses a store that already holds a network, and another network's file", async () => {
  const r = await cli(['import', path.join(work, 'plain.jsonl'), '--config', source.configFile]);
  assert.is(r.code, 1);
  assert.match(r.stderr, /the target path already holds a network \(svc\.db[^)]* in \S+\); .*nothing was imported/);
  const dir = tempDir();
  const other = writeConfig(dir, testConfig({ ...CONFIG, network: { id: 'othernet', name: 'Other' } }));
  const o = await cli(['import', path.join(work, 'plain.jsonl'), '--config', other]);
  assert.is(o.code, 1);
  assert.match(o.stderr, /line 1: the file holds network "testnet", the config is of network "othernet"/);
  assert.not.ok(existsSync(path.join(dir, '.svc', 'svc.db')));
});

t('import refuses while the server runs on the store', async () => {
  const target = emptyTarget();
  const running = await startServer({ dir: target.dir, config: CONFIG });
  try {
    const r = await cli(['import', path.join(work, 'plain.jsonl'), '--config', target.config]);
    assert.is(r.code, 1);
    assert.match(r.stderr, /^svc import: the store \S+ is in use by .*stop it first/);
  } finally {
    await running.dispose();
  }
  assert.ok(linesOf(path.join(work, 'plain.jsonl')).length > 0);
});

t.run();
