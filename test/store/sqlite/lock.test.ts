// One live process per sqlite store, against real processes: a second `svc serve` (same config
// with another port, or another config naming the same store), `svc store recover` and `svc store
// copy` are refused with one line naming the holder and touch no store file; a lock left by a
// killed server is taken over; a lock from another host never is; racing takeovers elect one.

import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, spawnCli, type CliOptions, type CliResult } from '../../helpers/cli.js';
import { freshSchema } from '../../helpers/pg.js';
import { pgStore } from '../../helpers/pg-server.js';
import { eventually, roomMessage, startServer, SVC_BIN, testConfig, TOKENS, writeConfig, type TestServer } from '../../helpers/server.js';

const ADMIN = TOKENS.admin.value;
const ROOMS = [{ id: 'general', members: ['ops'] }];
/** A pid no process has: above the kernel's largest. */
const DEAD_PID = 2 ** 22 + 17;

/** Every file of the store folder with its size, mtime and content hash. */
function storeFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const f = path.join(dir, name);
    const st = statSync(f);
    out[name] = `${st.size} ${st.mtimeMs} ${createHash('sha256').update(readFileSync(f)).digest('hex')}`;
  }
  return out;
}

/**
 * Waits until the live server's own background writes are done: its search worker writes
 * svc.db.search at most every 2 s after it indexes, so the file must have indexed the last send
 * (a search finds it) and kept its size and mtime over 3 s.
 */
async function quiet(s: TestServer, lastId: string): Promise<void> {
  const r = await s.get(`/v1/search?q=${encodeURIComponent(lastId)}`, ADMIN);
  assert.is(r.status, 200);
  const file = path.join(s.dir, '.svc', 'svc.db.search');
  const stamp = () => (existsSync(file) ? `${statSync(file).size} ${statSync(file).mtimeMs}` : '');
  for (let i = 0; i < 20; i++) {
    const before = stamp();
    await new Promise((r) => setTimeout(r, 3000));
    if (before !== '' && stamp() === before) return;
  }
  assert.unreachable('the search file kept changing');
}

async function send(s: TestServer, id: string): Promise<boolean> {
  const r = await s.post('/v1/messages', { ...roomMessage('general', 'ops', id), id }, ADMIN);
  return r.status >= 200 && r.status < 300;
}

async function messageIds(s: TestServer): Promise<string[]> {
  const r = await s.get('/v1/rooms/general/messages?limit=200', ADMIN);
  assert.is(r.status, 200, r.text);
  return (r.body.messages as { id: string }[]).map((m) => m.id);
}

/**
 * Runs `svc ...args` to its end, or stops it (SIGTERM) after 15 s: without the lock a second
 * server would run on, and the test must fail rather than hang.
 */
function cli(args: string[], o: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const p = spawnCli(args, o);
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => p.kill('SIGTERM'), 15_000);
    p.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    p.once('error', reject);
    p.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const lockOf = (s: TestServer) => path.join(s.dir, '.svc', 'svc.db.lock');

const t = suite('one live server per sqlite store');

t(
  'a second svc serve on the store is refused naming the first, touches no store file, every acknowledged message survives a kill -9, and the lock the killed server left is taken over by the next svc serve, which says so',
  async () => {
    const s = await startServer({ config: { rooms: ROOMS } });
    try {
      const acked: string[] = [];
      for (let i = 0; i < 5; i++) if (await send(s, `before-${i}`)) acked.push(`before-${i}`);
      assert.is(acked.length, 5);

      // Same config, another port: refused before it reads anything, leaving every file as it was.
      await quiet(s, 'before-4');
      const files = storeFiles(path.join(s.dir, '.svc'));
      const same = await cli(['serve', '--config', s.configFile, '--listen', '127.0.0.1:0'], { cwd: s.dir });
      assert.is(same.code, 1, same.stdout + same.stderr);
      assert.is(same.stdout, '');
      const lines = same.stderr.trim().split('\n');
      assert.is(lines.length, 1, same.stderr);
      assert.ok(lines[0]!.startsWith('svc serve: the store '), lines[0]);
      assert.ok(lines[0]!.includes(`svc serve (pid ${s.proc.pid} on host ${hostname()} since `), lines[0]);
      assert.ok(lines[0]!.includes(s.url), lines[0]);
      assert.equal(storeFiles(path.join(s.dir, '.svc')), files, 'the refused server changed a store file');

      // Another config file in another folder naming the same store, while messages keep coming.
      const other = mkdtempSync(path.join(tmpdir(), 'svc-lock-other-'));
      try {
        const otherConfig = writeConfig(other, testConfig({ rooms: ROOMS, store: { path: path.join(s.dir, '.svc', 'svc.db') } }));
        const during = (async () => {
          for (let i = 0; i < 10; i++) if (await send(s, `during-${i}`)) acked.push(`during-${i}`);
        })();
        const second = await cli(['serve', '--config', otherConfig], { cwd: other });
        await during;
        assert.is(second.code, 1, second.stdout + second.stderr);
        assert.ok(second.stderr.includes(`pid ${s.proc.pid}`), second.stderr);
        assert.is(second.stderr.trim().split('\n').length, 1, second.stderr);
        assert.not.ok(existsSync(path.join(other, '.svc')), 'the refused server made a store of its own');
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
      for (let i = 0; i < 3; i++) if (await send(s, `after-${i}`)) acked.push(`after-${i}`);
      assert.is(acked.length, 18);

      const first = s.proc.pid!;
      await s.kill9();
      assert.is(JSON.parse(readFileSync(lockOf(s), 'utf8')).pid, first, 'a kill -9 leaves the lock');
      await s.restart();
      const lock = JSON.parse(readFileSync(lockOf(s), 'utf8'));
      assert.is(lock.pid, s.proc.pid);
      assert.is(lock.url, s.url);
      assert.match(
        s.output(),
        new RegExp(
          `warn took over the store lock \\S+svc\\.db\\.lock left by svc serve \\(pid ${first} on host [^)]*\\): pid ${first} is gone\\n`,
        ),
      );
      const ids = await messageIds(s);
      for (const id of acked) assert.ok(ids.includes(id), `acknowledged message ${id} is gone: ${ids.join(' ')}`);
      assert.is(await s.stop(), 0);
      assert.not.ok(existsSync(lockOf(s)), 'a clean stop releases the lock');
    } finally {
      await s.dispose();
    }
  },
);

t(
  'right after a kill -9, while the killed server is a zombie its parent has not reaped, the next svc serve takes the store over',
  async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-lock-zombie-'));
    let parent: ChildProcess | undefined;
    let next: TestServer | undefined;
    try {
      const config = writeConfig(dir, testConfig({ rooms: ROOMS }));
      // A parent that never reaps: sh starts the server in the background, prints its pid and
      // becomes `sleep` (exec), which never waits for a child. Node would reap its own children at once.
      const log = path.join(dir, 'first.log');
      const q = (x: string) => `'${x.replace(/'/g, "'\\''")}'`;
      parent = spawn(
        'sh',
        ['-c', `${q(process.execPath)} ${q(SVC_BIN)} serve --config ${q(config)} >${q(log)} 2>&1 & echo $!; exec sleep 120`],
        { cwd: dir, env: cleanEnv({ HOME: dir }), stdio: ['ignore', 'pipe', 'ignore'] },
      );
      let out = '';
      parent.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      const pid: number = await eventually(() => Number(out.trim()) || 0, 15_000, 'the first server pid');
      await eventually(
        () => existsSync(log) && readFileSync(log, 'utf8').includes('svc listening on'),
        15_000,
        'the first server listening',
      );
      assert.is(JSON.parse(readFileSync(path.join(dir, '.svc', 'svc.db.lock'), 'utf8')).pid, pid);

      process.kill(pid, 'SIGKILL');
      const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
      await eventually(() => state() === 'Z', 5000, 'the killed server a zombie');

      next = await startServer({ dir, keepConfig: true });
      assert.is(state(), 'Z', 'the first server was reaped before the second started: the test proves nothing');
      assert.match(
        next.output(),
        new RegExp(
          `warn took over the store lock \\S+ left by svc serve \\(pid ${pid} [^)]*\\): pid ${pid} is gone \\(exited, not yet reaped by its parent\\)\\n`,
        ),
      );
      assert.is(JSON.parse(readFileSync(lockOf(next), 'utf8')).pid, next.proc.pid);
      assert.ok(await send(next, 'after-zombie'));
    } finally {
      await next?.stop();
      parent?.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

t('a lock whose pid now belongs to another process (started at another time) is taken over', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-lock-reused-'));
  try {
    writeConfig(dir, testConfig());
    mkdirSync(path.join(dir, '.svc'), { recursive: true });
    // This test process is alive, but it is not the process the lock names.
    writeFileSync(
      path.join(dir, '.svc', 'svc.db.lock'),
      JSON.stringify({ pid: process.pid, host: hostname(), proc_start: '1', started_at: '2026-01-02T03:04:05.000Z', command: 'svc serve' }),
    );
    const s = await startServer({ dir, keepConfig: true });
    try {
      assert.match(
        s.output(),
        new RegExp(
          `took over the store lock \\S+ left by svc serve \\(pid ${process.pid} [^)]*\\): pid ${process.pid} is another process now`,
        ),
      );
    } finally {
      await s.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t('a lock naming another host is refused with how to clear it, and left in place', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-lock-host-'));
  try {
    const config = writeConfig(dir, testConfig());
    const lock = path.join(dir, '.svc', 'svc.db.lock');
    mkdirSync(path.dirname(lock), { recursive: true });
    const text = JSON.stringify({
      pid: process.pid,
      host: 'elsewhere.example',
      started_at: '2026-01-02T03:04:05.000Z',
      command: 'svc serve',
      url: 'http://10.0.0.9:8787',
    });
    writeFileSync(lock, text);
    const r = await cli(['serve', '--config', config], { cwd: dir });
    assert.is(r.code, 1);
    assert.is(
      r.stderr,
      `svc serve: the store ${path.join(dir, '.svc', 'svc.db')} is in use by svc serve (pid ${process.pid} on host elsewhere.example since 2026-01-02T03:04:05.000Z, http://10.0.0.9:8787); ` +
        `a lock from another host is never taken over: check on elsewhere.example that no svc uses this store, then remove ${lock}\n`,
    );
    assert.is(readFileSync(lock, 'utf8'), text);
    assert.equal(readdirSync(path.dirname(lock)), ['svc.db.lock']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t('svc store recover and svc store copy are refused while a server holds the store and work once it stopped', async () => {
  const s = await startServer({ config: { rooms: ROOMS } });
  try {
    assert.ok(await send(s, 'kept'));
    const target = path.join(s.dir, 'copy', 'svc.db');
    const recover = await cli(['store', 'recover', '--config', s.configFile], { cwd: s.dir });
    assert.is(recover.code, 1);
    assert.match(
      recover.stderr,
      new RegExp(
        `^svc store recover: the store \\S+ is in use by svc serve \\(pid ${s.proc.pid} on host [^,]+ since [^,]+, ${s.url.replace(/[.]/g, '\\.')}\\); stop it first`,
      ),
    );
    const copy = await cli(['store', 'copy', '--config', s.configFile, '--to', target], { cwd: s.dir });
    assert.is(copy.code, 1);
    assert.match(copy.stderr, new RegExp(`^svc store copy: the store \\S+ is in use by svc serve \\(pid ${s.proc.pid} `));
    assert.is(copy.stderr.trim().split('\n').length, 1);
    assert.not.ok(existsSync(path.dirname(target)), 'nothing was copied');

    assert.is(await s.stop(), 0);
    const recovered = await cli(['store', 'recover', '--config', s.configFile], { cwd: s.dir });
    assert.is(recovered.code, 0, recovered.stderr);
    const copied = await cli(['store', 'copy', '--config', s.configFile, '--to', target], { cwd: s.dir });
    assert.is(copied.code, 0, copied.stderr);
    assert.match(copied.stdout, /^copied network testnet into \S+: 1 rooms, \d+ agents, 1 messages/);
    assert.not.ok(existsSync(lockOf(s)), 'the commands release the lock');
  } finally {
    await s.dispose();
  }
});

t('of several servers started at once on a stale lock exactly one takes it over; the others name it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-lock-race-'));
  const procs: ReturnType<typeof spawnCli>[] = [];
  try {
    const config = writeConfig(dir, testConfig());
    mkdirSync(path.join(dir, '.svc'), { recursive: true });
    writeFileSync(
      path.join(dir, '.svc', 'svc.db.lock'),
      JSON.stringify({ pid: DEAD_PID, host: hostname(), started_at: '2026-01-02T03:04:05.000Z', command: 'svc serve' }),
    );
    const results = await Promise.all(
      [0, 1, 2, 3].map(
        (i) =>
          new Promise<{ pid: number; listening: boolean; out: string }>((resolve) => {
            const p = spawnCli(['serve', '--config', config, '--listen', '127.0.0.1:0'], { cwd: dir, env: { HOME: dir, I: String(i) } });
            procs.push(p);
            let out = '';
            const done = (listening: boolean) => resolve({ pid: p.pid!, listening, out });
            p.stdout!.on('data', (d: Buffer) => {
              out += d.toString();
              if (out.includes('svc listening on')) done(true);
            });
            p.stderr!.on('data', (d: Buffer) => (out += d.toString()));
            p.once('exit', () => done(false));
          }),
      ),
    );
    const winners = results.filter((r) => r.listening);
    assert.is(winners.length, 1, results.map((r) => r.out).join('\n---\n'));
    const winner = winners[0]!;
    assert.is(JSON.parse(readFileSync(path.join(dir, '.svc', 'svc.db.lock'), 'utf8')).pid, winner.pid);
    for (const r of results.filter((x) => !x.listening)) assert.ok(r.out.includes(`svc serve (pid ${winner.pid} `), r.out);
  } finally {
    // Wait for each to be gone before removing the folder it writes in (a pause is not enough on a busy machine).
    await Promise.all(
      procs.map((p) =>
        p.exitCode !== null || p.signalCode !== null
          ? undefined
          : new Promise((r) => {
              p.once('exit', r);
              p.kill('SIGKILL');
            }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  }
});

t('the memory backend takes no lock: two servers on one config both run', async () => {
  const a = await startServer({ config: { store: { backend: 'memory' } } });
  const b = await startServer({ dir: a.dir, keepConfig: true });
  try {
    assert.is((await b.get('/healthz')).status, 200);
    assert.is((await a.get('/healthz')).status, 200);
    assert.not.ok(existsSync(lockOf(a)));
  } finally {
    await b.stop();
    await a.dispose();
  }
});

t('Postgres takes no lock: two servers on one schema from one folder both run and see one network', async () => {
  const pg = await freshSchema();
  const env = { SVC_TEST_STORE_URL: pg.url };
  const a = await startServer({ config: { rooms: ROOMS, store: pgStore(pg) }, env });
  const b = await startServer({ dir: a.dir, keepConfig: true, env });
  try {
    assert.ok(await send(a, 'on-a'));
    assert.ok((await messageIds(b)).includes('on-a'));
    assert.not.ok(existsSync(lockOf(a)));
  } finally {
    await b.stop();
    await a.dispose();
    await pg.drop();
  }
});

t.run();
