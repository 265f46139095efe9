// SIGKILL under load: 21 kills per run at random moments, a third of them aimed at the steps of a
// checkpoint (page-file.ts: writing svc.db.pages.tmp, svc.db.pages written, svc.db half written,
// svc.db written): the server pauses at each step so that a kill lands there. Replay a run with
// CRASH_SEED=<seed> (printed on failure).

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, watch } from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from '../helpers/server.js';
import { TOKENS } from '../helpers/server.js';
import {
  Gate,
  ROOMS,
  WATCHER,
  Watcher,
  allMessages,
  createRooms,
  emptyAcked,
  rng,
  runWorkload,
  sleep,
  verify,
  type Acked,
} from './harness.js';

const SEED = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const KILLS = Number(process.env.CRASH_KILLS ?? 21);
const WORKERS = 8;
/** How long a checkpoint waits at each of its steps (SVC_FAULT_CHECKPOINT_PAUSE_MS). */
const STEP_MS = 100;

interface Ctx {
  s: TestServer;
  gate: Gate;
  watcher: Watcher;
  acked: Acked;
  kills: { redoWriting: number; redoWritten: number; total: number };
}

const t = suite<Ctx>('a server killed with SIGKILL under concurrent load');
t.before(async (ctx) => {
  ctx.s = await startServer({
    config: {
      // Small journals make checkpoints frequent, so kills land during them.
      store: { checkpoint_bytes: 16 * 1024 },
      // The workload has agents talking without humans; the loop guard is tested elsewhere.
      server: { loop_guard: { enabled: false } },
    },
    env: { SVC_FAULT_CHECKPOINT_PAUSE_MS: String(STEP_MS) },
  });
  await createRooms(ctx.s);
  ctx.gate = new Gate(ctx.s);
  ctx.watcher = new Watcher(ctx.gate, WATCHER, TOKENS.admin.value);
  ctx.acked = emptyAcked();
  ctx.kills = { redoWriting: 0, redoWritten: 0, total: 0 };
});
t.after(async (ctx) => {
  await ctx.watcher.stop();
  await ctx.s.dispose();
});

/** Resolves when a checkpoint starts writing svc.db.pages.tmp, or after `ms`. */
function checkpointStarts(dir: string, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const w = watch(dir, (_e, name) => {
      if (name === 'svc.db.pages.tmp' && existsSync(path.join(dir, name))) done(true);
    });
    const timer = setTimeout(() => done(false), ms);
    function done(v: boolean) {
      clearTimeout(timer);
      w.close();
      resolve(v);
    }
  });
}

const seeded = (what: string) => `${what} (seed ${SEED}; replay with CRASH_SEED=${SEED})`;

t('keeps every acknowledged write exactly once and converges every retried one', async (ctx) => {
  const { s, acked, gate, watcher } = ctx;
  watcher.start();
  // The watcher attaches before any traffic, so every workload event is after its first cursor.
  while (watcher.sessions === 0) await sleep(20);
  const rand = rng(SEED);
  const data = path.join(s.dir, '.svc');
  let stop = false;
  const load = runWorkload(gate, SEED, WORKERS, () => stop, acked);
  try {
    for (let k = 0; k < KILLS; k++) {
      if (k % 3 === 2) {
        // Aimed at the middle of step 0, 1, 2 or 3 in turn.
        if (await checkpointStarts(data, 3000)) await sleep((((k - 2) / 3) % 4) * STEP_MS + STEP_MS / 2);
      } else {
        await sleep(150 + rand() * 500);
      }
      gate.down();
      if (existsSync(path.join(data, 'svc.db.pages.tmp'))) ctx.kills.redoWriting++;
      if (existsSync(path.join(data, 'svc.db.pages'))) ctx.kills.redoWritten++;
      const t0 = Date.now();
      const attached = watcher.sessions;
      await s.kill9();
      ctx.kills.total++;
      // The database must open every time.
      await s.restart();
      if (process.env.CRASH_DEBUG) console.log(`kill ${k}: restart ${Date.now() - t0} ms, acked ${acked.messages.size}`);
      gate.up();
      // Every other restart, the next kill waits for the watcher to attach again (at most 30 s): on
      // a loaded machine a restart can otherwise come round before it has, and the delivery test
      // below would see too few of its sessions cross a kill.
      if (k % 2 === 0) for (const until = Date.now() + 30_000; watcher.sessions === attached && Date.now() < until; ) await sleep(20);
    }
    stop = true;
    await load;
  } catch (err) {
    stop = true;
    gate.up();
    await load.catch(() => undefined);
    throw new Error(seeded(String((err as Error).stack ?? err)));
  }
  assert.is(ctx.kills.total, KILLS);
  assert.ok(ctx.kills.redoWriting >= 1, seeded(`no kill landed while a checkpoint wrote its pages (${JSON.stringify(ctx.kills)})`));
  assert.ok(ctx.kills.redoWritten >= 1, seeded(`no kill landed while a checkpoint applied its pages (${JSON.stringify(ctx.kills)})`));
  assert.ok(acked.retried > 0, seeded('no operation needed a retry, so no kill hit a request'));
  assert.ok(acked.messages.size > 50, seeded(`only ${acked.messages.size} messages were acknowledged`));
  // Checkpoints ran: the journal generation moved on.
  const gens = readdirSync(data)
    .filter((n) => /^svc\.db\.journal\.\d+$/.test(n))
    .map((n) => Number(n.split('.').pop()));
  assert.ok(Math.max(...gens) > 3, seeded(`journal generations ${gens.join(',')}: checkpoints did not run`));
  try {
    await verify(s, acked);
  } catch (err) {
    throw new Error(seeded((err as Error).message));
  }
});

t('delivered every room and thread message to the attached agent exactly once, across every restart', async ({ s, watcher }) => {
  const expected: string[] = [];
  for (const room of ROOMS) {
    for (const m of await allMessages(s, `/v1/rooms/${room}/messages`)) expected.push(m.id);
    for (const th of (await s.get(`/v1/rooms/${room}/threads?limit=500`, TOKENS.admin.value)).body.threads) {
      for (const m of await allMessages(s, `/v1/threads/${th.id}/messages`)) expected.push(m.id);
    }
  }
  // A bound on a hang, not a speed target: after the last restart under a full run the attachment
  // catches up on every room at a small share of 2 cores.
  const deadline = Date.now() + 60_000;
  while (expected.some((id) => !watcher.seen.has(id)) && Date.now() < deadline) await sleep(50);
  const missing = expected.filter((id) => !watcher.seen.has(id));
  assert.equal(missing.slice(0, 10), [], seeded(`${missing.length} of ${expected.length} messages never reached the attachment (a gap)`));
  const twice = [...watcher.seen].filter(([, n]) => n > 1).map(([id]) => id);
  assert.equal(twice.slice(0, 10), [], seeded('messages delivered twice'));
  assert.equal(watcher.problems.slice(0, 10), [], seeded('cursor problems'));
  assert.ok(watcher.sessions > KILLS / 2, `the watcher attached only ${watcher.sessions} times`);
});

t('still holds every acknowledged write after one more kill and after a graceful restart', async ({ s, acked, gate }) => {
  gate.down();
  await s.kill9();
  await s.restart();
  gate.up();
  await verify(s, acked);
  await s.restart(); // SIGTERM: close checkpoints, the next start reads svc.db alone
  await verify(s, acked);
});

t.run();
