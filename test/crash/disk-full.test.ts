// A full disk under the data directory, two ways: a real 8 MiB tmpfs filled with a filler file
// (needs root and mount(8), which `npm test` installs: scripts/test-deps.mjs; a failed mount fails
// the tests), and the store's injected ENOSPC (SVC_FAULT_JOURNAL_ENOSPC_FILE, a test hook: while
// the named file exists, journal writes fail as on a full disk).
// Either way the server must answer 503 with a clear error, never acknowledge what it could not
// persist, keep serving reads, and accept writes again once space returns, without a restart.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually, startServer, TOKENS, roomMessage, type Res, type TestServer } from '../helpers/server.js';
import { allMessages } from './harness.js';
// @ts-expect-error: a plain .mjs script without types
import { needPath } from '../../scripts/test-deps.mjs';

const ADMIN = TOKENS.admin.value;

interface Disk {
  /** Makes the disk full. */
  fill(): void;
  /** Gives the space back. */
  free(): void;
  dispose(): void;
}

/** mount(8) as scripts/test-deps.mjs checked it; umount(8) comes in the same package. */
const MOUNT: string = needPath('SVC_MOUNT');
const UMOUNT = path.join(path.dirname(MOUNT), 'umount');

/** An 8 MiB tmpfs; throws (failing the suite) when it cannot be mounted. */
function mountTmpfs(): { dir: string; unmount: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-tmpfs-'));
  try {
    execFileSync(MOUNT, ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const why = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
    throw new Error(`cannot mount a tmpfs with ${MOUNT} (these tests need root and mount(8); \`npm test\` installs it): ${why}`);
  }
  return {
    dir,
    unmount: () => {
      try {
        execFileSync(UMOUNT, [dir], { stdio: 'ignore' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Fills a filesystem to the last byte. */
function fillUp(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 8, 1]) {
      const chunk = Buffer.alloc(size, 0x78);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

interface Ctx {
  s: TestServer;
  disk: Disk;
  acked: string[];
  refused: string[];
  /** Status of a room creation and an agent registration tried while full (200 only if persisted). */
  roomWhileFull: number;
  agentWhileFull: number;
}

let n = 0;
async function send(s: TestServer, id = `msg-${++n}`): Promise<{ id: string; status: number; body: any; headers: Res['headers'] }> {
  const r = await s.post('/v1/messages', roomMessage('r0', 'a0', `text of ${id}`, { id }), ADMIN);
  return { id, status: r.status, body: r.body, headers: r.headers };
}

/** `exact`: every write fails while full (injected); a real disk may still fit a small record in a page it owns. */
function diskFullSuite(name: string, exact: boolean, make: () => Promise<{ s: TestServer; disk: Disk }>): void {
  const t = suite<Ctx>(name);
  // A set-up that throws (a tmpfs that cannot be mounted) fails each test with its reason: uvu
  // reports a throwing `before` hook only as tests that never ran, and exits 0.
  let setupError: unknown;
  t.before(async (ctx) => {
    try {
      Object.assign(ctx, await make(), { acked: [], refused: [] });
      assert.is((await ctx.s.post('/v1/rooms', { id: 'r0', name: 'r0', members: ['a0'] }, ADMIN)).status, 200);
      for (let i = 0; i < 5; i++) {
        const r = await send(ctx.s);
        assert.is(r.status, 200);
        ctx.acked.push(r.id);
      }
    } catch (err) {
      setupError = err;
    }
  });
  t.after(async (ctx) => {
    await ctx.s?.dispose();
    ctx.disk?.dispose();
  });
  const test = (title: string, fn: (ctx: Ctx) => Promise<void>) =>
    t(title, async (ctx) => {
      if (setupError) throw setupError;
      await fn(ctx);
    });

  test('refuses writes with 503 and a clear error while the disk is full, and keeps serving reads', async (ctx) => {
    const { s, disk } = ctx;
    disk.fill();
    // A few bytes may still fit in a page the journal already owns; those writes are real.
    let r = await send(s);
    for (let i = 0; r.status === 200 && i < 200; i++) {
      ctx.acked.push(r.id);
      r = await send(s);
    }
    assert.is(r.status, 503, JSON.stringify(r.body));
    assert.is(r.body.code, 'service_unavailable');
    assert.match(r.body.error, /nothing was saved/);
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    ctx.refused.push(r.id);
    for (let i = 0; i < 5; i++) {
      const again = await send(s);
      if (!exact && again.status === 200) {
        ctx.acked.push(again.id);
        continue;
      }
      assert.is(again.status, 503);
      ctx.refused.push(again.id);
    }
    const room = await s.post('/v1/rooms', { id: 'r1', name: 'r1', members: [] }, ADMIN);
    const reg = await s.post('/v1/agents/register', { requested_agent_id: 'late' }, ADMIN);
    ctx.roomWhileFull = room.status;
    ctx.agentWhileFull = reg.status;
    for (const x of [room, reg]) {
      if (exact || x.status !== 200) assert.is(x.status, 503, x.text);
      if (x.status === 503) assert.is(x.body.code, 'service_unavailable');
    }
    // A real disk may have fitted the last write in a freed page: end on a refused one.
    for (let i = 0, last = await send(s); i < 50; i++, last = await send(s)) {
      if (last.status !== 200) {
        ctx.refused.push(last.id);
        break;
      }
      ctx.acked.push(last.id);
    }
    // Nothing refused is visible, everything acknowledged is.
    const ids = (await allMessages(s, '/v1/rooms/r0/messages')).map((m) => m.id);
    assert.equal(ids, ctx.acked);
    assert.is((await s.get('/healthz')).status, 200);
    // Not ready while the store refuses writes, so a load balancer sends writes elsewhere.
    const ready = await s.get('/readyz');
    assert.is(ready.status, 503, ready.text);
    assert.is(ready.body.code, 'service_unavailable');
    // One rate-limited line for the refusals, not a line (or a stack trace) per refused write.
    const out = s.output();
    const lines = out.match(/store refuses writes/g) ?? [];
    if (exact) assert.is(lines.length, 1, out);
    else assert.ok(lines.length >= 1 && lines.length <= 4, out);
    assert.match(out, /store refuses writes.*ENOSPC/);
    assert.not.match(out, /\n\s+at [^\n]+:\d+:\d+\)?\n/, 'no stack trace in the log');
    assert.not.match(out, /journal append failed/);
    assert.not.match(out, /request failed/);
    assert.not.match(s.output(), /tok-[a-z]+-0123456789/);
  });

  test('accepts writes again once space returns, without a restart', async (ctx) => {
    const { s, disk } = ctx;
    disk.free();
    // Ready again by itself, before any write arrives (a drained server gets none).
    await eventually(async () => (await s.get('/readyz')).status === 200, 5000, '/readyz ready again');
    assert.match(s.output(), /store accepts writes again/);
    const r = await send(s);
    assert.is(r.status, 200, JSON.stringify(r.body));
    ctx.acked.push(r.id);
    // A refused send retried with its id is stored once.
    const retry = await send(s, ctx.refused[0]);
    assert.is(retry.status, 200);
    ctx.acked.push(ctx.refused.shift()!);
    assert.is((await s.post('/v1/rooms', { id: 'r2', name: 'r2', members: [] }, ADMIN)).status, 200);
  });

  test('has kept exactly the acknowledged writes across a crash', async (ctx) => {
    const { s } = ctx;
    await s.kill9();
    await s.restart();
    const ids = (await allMessages(s, '/v1/rooms/r0/messages')).map((m) => m.id);
    assert.equal(ids, ctx.acked);
    for (const id of ctx.refused) assert.not.ok(ids.includes(id));
    assert.is((await s.get('/v1/rooms/r1', ADMIN)).status, ctx.roomWhileFull === 200 ? 200 : 404);
    assert.is((await s.get('/v1/agents/late', ADMIN)).status, ctx.agentWhileFull === 200 ? 200 : 404);
    assert.is((await s.get('/v1/rooms/r2', ADMIN)).status, 200);
  });

  test('shuts down cleanly while the disk is full and loses nothing acknowledged', async (ctx) => {
    const { s, disk } = ctx;
    disk.fill();
    const r = await send(s);
    if (r.status === 200) ctx.acked.push(r.id);
    assert.is(await s.stop(), 0);
    disk.free();
    await s.restart();
    const ids = (await allMessages(s, '/v1/rooms/r0/messages')).map((m) => m.id);
    assert.equal(ids, ctx.acked);
  });

  t.run();
}

diskFullSuite('a server whose data directory is a full tmpfs', false, () => {
  return (async () => {
    const fs = mountTmpfs();
    const filler = path.join(fs.dir, 'filler');
    const s = await startServer({
      config: { store: { path: path.join(fs.dir, 'svc.db') }, server: { loop_guard: { enabled: false } } },
    }).catch((err) => {
      fs.unmount();
      throw err;
    });
    return {
      s,
      disk: {
        fill: () => fillUp(filler),
        free: () => rmSync(filler, { force: true }),
        dispose: () => fs.unmount(),
      },
    };
  })();
});

diskFullSuite('a server whose journal writes fail with an injected ENOSPC', true, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-enospc-'));
  const flag = path.join(dir, 'disk-full');
  return (async () => {
    const s = await startServer({ env: { SVC_FAULT_JOURNAL_ENOSPC_FILE: flag }, config: { server: { loop_guard: { enabled: false } } } });
    return {
      s,
      disk: {
        fill: () => writeFileSync(flag, ''),
        free: () => rmSync(flag, { force: true }),
        dispose: () => rmSync(dir, { recursive: true, force: true }),
      },
    };
  })();
});
