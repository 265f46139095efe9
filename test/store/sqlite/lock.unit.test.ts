// The store lock's decision (take, take over, refuse) with exact values, and the lock file it
// writes, takes over and releases in a temp folder.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  acquireStoreLock,
  decideLock,
  describeHolder,
  lockFilePath,
  parseLock,
  refusalLine,
  type LockHolder,
} from '../../../src/store/sqlite/engine/folder-lock.js';

const me = { pid: 200, host: 'here', boot_id: 'boot-b' };
const holder: LockHolder = {
  pid: 100,
  host: 'here',
  boot_id: 'boot-b',
  started_at: '2026-01-02T03:04:05.000Z',
  command: 'svc serve',
  url: 'http://127.0.0.1:8787',
};

const d = suite('the lock decision');

d('no lock file: take it', () => {
  assert.equal(decideLock(undefined, me, { alive: false }), { kind: 'take' });
});

d('a live holder on this host: refused', () => {
  assert.equal(decideLock(holder, me, { alive: true }), { kind: 'refuse', code: 'store_locked', reason: 'held by a running process' });
});

d('a holder whose pid is gone on this host: taken over', () => {
  assert.equal(decideLock(holder, me, { alive: false }), { kind: 'takeover', reason: 'pid 100 is gone' });
});

d('a holder whose pid is a zombie (killed, not yet reaped): taken over, saying so', () => {
  assert.equal(decideLock(holder, me, { alive: false, zombie: true }), {
    kind: 'takeover',
    reason: 'pid 100 is gone (exited, not yet reaped by its parent)',
  });
});

d('a holder from another host: refused even when a process with its pid runs here', () => {
  const other = { ...holder, host: 'there' };
  assert.equal(decideLock(other, me, { alive: true }), {
    kind: 'refuse',
    code: 'store_locked_other_host',
    reason: 'held by another host, there',
  });
  assert.equal(decideLock(other, me, { alive: false }), {
    kind: 'refuse',
    code: 'store_locked_other_host',
    reason: 'held by another host, there',
  });
});

d('a holder from an earlier boot of this host: taken over though its pid is alive again', () => {
  assert.equal(decideLock({ ...holder, boot_id: 'boot-a' }, me, { alive: true }), {
    kind: 'takeover',
    reason: 'pid 100 ran before this host restarted',
  });
});

d('a holder without a boot id is judged by its pid alone', () => {
  const { boot_id: _b, ...noBoot } = holder;
  assert.equal(decideLock(noBoot, me, { alive: true }), { kind: 'refuse', code: 'store_locked', reason: 'held by a running process' });
});

d("a lock naming the claimant's own pid was left by an earlier run (a container's pid 1): taken over", () => {
  assert.equal(decideLock({ ...holder, pid: 200 }, me, { alive: true }), {
    kind: 'takeover',
    reason: 'pid 200 is this process: the lock was left by an earlier run',
  });
});

d('a holder whose pid now belongs to a process that started at another time: taken over', () => {
  const started = { ...holder, proc_start: '5000' };
  assert.equal(decideLock(started, me, { alive: true, proc_start: '9000' }), {
    kind: 'takeover',
    reason: 'pid 100 is another process now',
  });
  assert.equal(decideLock(started, me, { alive: true, proc_start: '5000' }), {
    kind: 'refuse',
    code: 'store_locked',
    reason: 'held by a running process',
  });
  assert.equal(decideLock(started, me, { alive: true }), { kind: 'refuse', code: 'store_locked', reason: 'held by a running process' });
});

d('a file that is not a lock: refused', () => {
  assert.equal(decideLock(null, me, { alive: false }), {
    kind: 'refuse',
    code: 'store_lock_unreadable',
    reason: 'the lock file is not one svc wrote',
  });
});

d('parseLock reads a lock and rejects anything else', () => {
  assert.equal(parseLock(JSON.stringify(holder)), holder);
  assert.equal(parseLock('{"pid":7,"host":"h"}'), { pid: 7, host: 'h', started_at: 'an unknown time', command: 'svc' });
  assert.is(parseLock(''), null);
  assert.is(parseLock('{"pid":"7","host":"h"}'), null);
  assert.is(parseLock('null'), null);
});

d('the refusal names the holder (pid, host, since, URL) and what to do', () => {
  assert.is(describeHolder(holder), 'svc serve (pid 100 on host here since 2026-01-02T03:04:05.000Z, http://127.0.0.1:8787)');
  assert.is(
    refusalLine('/d/svc.db', '/d/svc.db.lock', holder, { kind: 'refuse', code: 'store_locked', reason: '' }),
    'the store /d/svc.db is in use by svc serve (pid 100 on host here since 2026-01-02T03:04:05.000Z, http://127.0.0.1:8787); stop it first (one process at a time may use a sqlite store)',
  );
  assert.is(
    refusalLine(
      '/d/svc.db',
      '/d/svc.db.lock',
      { ...holder, host: 'there' },
      { kind: 'refuse', code: 'store_locked_other_host', reason: '' },
    ),
    'the store /d/svc.db is in use by svc serve (pid 100 on host there since 2026-01-02T03:04:05.000Z, http://127.0.0.1:8787); a lock from another host is never taken over: check on there that no svc uses this store, then remove /d/svc.db.lock',
  );
  assert.is(
    refusalLine('/d/svc.db', '/d/svc.db.lock', null, { kind: 'refuse', code: 'store_lock_unreadable', reason: '' }),
    'the store /d/svc.db is locked by /d/svc.db.lock, which is not a lock svc wrote; if no svc process uses this store, remove that file',
  );
});

d.run();

const f = suite<{ dir: string }>('the lock file');
f.before.each((c) => {
  c.dir = mkdtempSync(path.join(tmpdir(), 'svc-lock-'));
});
f.after.each((c) => rmSync(c.dir, { recursive: true, force: true }));

// A pid that no process has: above the kernel's largest.
const DEAD_PID = 2 ** 22 + 17;

f('a lock is taken, carries its URL once set, refuses a second claimant and is gone after release', async ({ dir }) => {
  const store = path.join(dir, 'data', 'svc.db');
  const r = await acquireStoreLock(store, { command: 'svc serve' });
  assert.ok(r.ok);
  if (!r.ok) return;
  assert.is(r.lock.file, `${store}.lock`);
  r.lock.setUrl('http://127.0.0.1:1234');
  const onDisk = parseLock(readFileSync(r.lock.file, 'utf8'));
  assert.is(onDisk?.pid, process.pid);
  assert.is(onDisk?.url, 'http://127.0.0.1:1234');
  assert.is(onDisk?.command, 'svc serve');
  // Another process (the parent, alive) claims it: refused.
  const second = await acquireStoreLock(store, {
    command: 'svc store copy',
    me: { pid: process.ppid, host: onDisk!.host, ...(onDisk!.boot_id ? { boot_id: onDisk!.boot_id } : {}) },
  });
  assert.equal(second.ok, false);
  if (!second.ok) {
    assert.is(second.code, 'store_locked');
    assert.ok(second.message.includes(`pid ${process.pid}`), second.message);
    assert.ok(second.message.includes('http://127.0.0.1:1234'), second.message);
  }
  r.lock.release();
  assert.not.ok(existsSync(r.lock.file));
  assert.equal(readdir(dir, 'data'), [], 'no temporary file is left behind');
});

f('a lock whose pid is gone is taken over and says whose it was', async ({ dir }) => {
  const store = path.join(dir, 'svc.db');
  writeFileSync(lockFilePath(store), JSON.stringify({ ...holder, pid: DEAD_PID, host: hostname(), boot_id: undefined }));
  const r = await acquireStoreLock(store, { command: 'svc serve' });
  assert.ok(r.ok);
  if (!r.ok) return;
  assert.is(
    r.tookOver,
    `svc serve (pid ${DEAD_PID} on host ${hostname()} since 2026-01-02T03:04:05.000Z, http://127.0.0.1:8787): pid ${DEAD_PID} is gone`,
  );
  assert.is(parseLock(readFileSync(lockFilePath(store), 'utf8'))?.pid, process.pid);
  r.lock.release();
  assert.equal(readdir(dir), []);
});

f('a lock from another host is refused and left as it was', async ({ dir }) => {
  const store = path.join(dir, 'svc.db');
  const text = JSON.stringify({ ...holder, host: 'elsewhere.example' });
  writeFileSync(lockFilePath(store), text);
  const r = await acquireStoreLock(store, { command: 'svc serve' });
  assert.equal(r.ok, false);
  if (!r.ok) assert.is(r.code, 'store_locked_other_host');
  assert.is(readFileSync(lockFilePath(store), 'utf8'), text);
});

f("release leaves a lock that is no longer this process's own", async ({ dir }) => {
  const store = path.join(dir, 'svc.db');
  const r = await acquireStoreLock(store, { command: 'svc serve' });
  assert.ok(r.ok);
  if (!r.ok) return;
  const other = JSON.stringify({ ...holder, pid: process.ppid });
  writeFileSync(r.lock.file, other);
  r.lock.release();
  assert.is(readFileSync(r.lock.file, 'utf8'), other);
});

function readdir(...p: string[]): string[] {
  return readdirSync(path.join(...p)).sort();
}

f.run();
