// Wake latency: how long an agent that is not holding a socket of its own takes to be woken by a
// mention, under the paced fan-out's load, beside the baseline's WebSocket frame latency under the
// same load. On one svc serve (sqlite), with the run's paced fan-out (the same rate, the same
// attached agents) running the whole time:
// - agent_run: `svc agent run --wake mentions --reply none -- sh -c 'exec date +%s%N >> FILE'`;
//   from the mention's send to the moment its command starts (the date it writes, on the wall clock,
//   so to the millisecond: the send is stamped with Date.now()). One mention at a time.
// - mcp_wait: an MCP client (the SDK's, over Streamable HTTP, as the agent `waiter`) with a
//   wait_for_messages call open; from the mention's send to the call's result.
// - baseline: the baseline server's paced fan-out at the same rate to as many WebSocket
//   subscribers for as long, publish to frame (scenario 2's paced phase).
// Target: each p99 at most 2x the baseline's (WAKE_TARGET).

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { connectMcpHttp, type McpHttpSession } from '../../test/helpers/mcp-http.js';
import { startBaseline } from '../lib/baseline-proc.js';
import { Conn, postBytes } from '../lib/http.js';
import type { SubscriberPool } from '../lib/pool.js';
import { idleMeter, launch, stop, tail, waitForLine } from '../lib/procs.js';
import type { RunContext } from '../lib/run-context.js';
import type { Sizes } from '../lib/sizes.js';
import { nowMs, round, Samples, sleep } from '../lib/stats.js';
import { PUBLISHER, SVC_BIN, sendBody, startSvc, type SvcServer, TOKEN } from '../lib/svc.js';
import { baselineTarget, svcTarget, type Target } from '../lib/targets.js';
import { isSaturated } from '../lib/verdict.js';
import { runPaced } from './live.js';
import type { WakeFigures, WakeResults } from '../lib/scenario-results.js';
export type { WakeFigures, WakeResults };

/** The target: a wake's p99 at most this many times the baseline's frame p99. */
export const WAKE_TARGET = 2;

/**
 * Mentions per wake path, by run size. A full run's are enough for a p99 that is not simply the
 * largest (with 60 and 30, until 2026-12-01, it was): the 99th of 100 leaves out one, of 200 two.
 */
const PROBES: Record<Sizes['name'], { agentRun: number; mcp: number }> = {
  full: { agentRun: 200, mcp: 100 },
  quick: { agentRun: 15, mcp: 8 },
  smoke: { agentRun: 3, mcp: 2 },
};

/** How long an MCP wait is left open before the mention is sent (its request must have reached the server). */
const WAIT_OPEN_MS = 250;

const WAKE_ROOM = 'wake';
const RUNNER = 'runner';
const WAITER = 'waiter';

/** Runs the scenario; `s` are the sizes with the run's paced rate. */
export async function runWake(ctx: RunContext, fanoutRoom: { id: string; members: string[] }, s: Sizes): Promise<void> {
  const out: WakeResults = { rate: s.fanout.rate, agents: s.fanout.subscribers };
  ctx.results.wake = out;
  const probes = PROBES[s.name];
  const dir = path.join(ctx.tmp, 'wake-svc');
  mkdirSync(dir);
  const rooms = [fanoutRoom, { id: WAKE_ROOM, members: [PUBLISHER, RUNNER, WAITER] }];
  let loadSeconds = 0;
  await ctx.step(
    'wake svc',
    async () => {
      const server = await startSvc({ dir, rooms });
      try {
        loadSeconds = await onSvc(server, dir, s, probes, out, ctx.note);
      } finally {
        await server.stop();
      }
    },
    (m) => ctx.noteOn(out, m),
  );
  if (loadSeconds <= 0) return;
  ctx.log(`wake: the baseline's paced fan-out at ${s.fanout.rate}/s for ${round(loadSeconds)} s`);
  const bdir = path.join(ctx.tmp, 'wake-baseline');
  mkdirSync(bdir);
  const base = await ctx.step(
    'wake baseline',
    async () => {
      const t = baselineTarget(await startBaseline(bdir));
      try {
        return await runPaced(t, 'baseline', { ...s, fanout: { ...s.fanout, seconds: loadSeconds } }, ctx.note);
      } finally {
        await t.stop();
      }
    },
    (m) => ctx.noteOn(out, m),
  );
  out.baseline = base ? { p50_ms: base.p50_ms, p99_ms: base.p99_ms } : null;
  out.baseline_idle_pct = base?.idle_pct ?? null;
}

/** The svc side: the load, then agent run's wakes, then MCP's; returns how long the load ran (s). */
async function onSvc(
  server: SvcServer,
  dir: string,
  s: Sizes,
  probes: { agentRun: number; mcp: number },
  out: WakeResults,
  note: (m: string) => void,
): Promise<number> {
  const t = svcTarget(server);
  const stampFile = path.join(dir, 'wakes.txt');
  const runner = launch(
    process.execPath,
    [
      SVC_BIN,
      'agent',
      'run',
      '--url',
      `http://127.0.0.1:${server.port}`,
      '--agent',
      RUNNER,
      '--wake',
      'mentions',
      '--rooms',
      WAKE_ROOM,
      '--reply',
      'none',
      '--state-dir',
      path.join(dir, 'runner-state'),
      '--',
      '/bin/sh',
      '-c',
      'exec date +%s%N >> "$0"',
      stampFile,
    ],
    { cwd: dir, env: { ...process.env, NO_COLOR: '1', SVC_TOKEN: TOKEN } },
  );
  const runnerOut = tail(runner);
  // The runner attaches while the load's subscriber process starts (each is a process start).
  const attached = waitForLine(runner, /attached as runner/, 60_000, 'svc agent run');
  attached.catch(() => undefined);
  let pool: SubscriberPool | undefined;
  let mcp: McpHttpSession | undefined;
  let load: { stop(): Promise<number> } | undefined;
  try {
    pool = await t.subscribe('svc-attach', s.fanout.subscribers);
    await attached;
    mcp = await connectMcpHttp(`http://127.0.0.1:${server.port}`, TOKEN, { 'x-svc-agent': WAITER });
    // Anything the waiter has pending is returned now, so the first probe's wait is a real one.
    await mcp.call('wait_for_messages', { timeout_s: 0 });
    await pool.phase('p');
    load = startLoad(t, s);
    // The load's first second outside the numbers (connections, JIT).
    await sleep(1000);
    const idle = idleMeter();
    const conn = await Conn.open(server.port);
    try {
      out.agent_run = await agentRunWakes(conn, stampFile, probes.agentRun, () => runnerOut());
      out.mcp_wait = await mcpWakes(conn, mcp, probes.mcp, note);
    } finally {
      conn.close();
    }
    out.idle_pct = idle();
    out.saturated = isSaturated(out.idle_pct) ?? false;
    const seconds = await load.stop();
    load = undefined;
    const lat = new Samples();
    lat.merge(await pool.samples());
    const l = lat.summary();
    out.svc_load = { p50_ms: l.p50_ms, p99_ms: l.p99_ms };
    return seconds;
  } finally {
    await load?.stop();
    await mcp?.close().catch(() => undefined);
    await stop(runner, 10_000);
    await pool?.close();
  }
}

/**
 * The paced fan-out, one publishing run until stopped (as the baseline's: one set of connections;
 * one-second rounds until 2026-12-01 opened 16 new ones a second); `stop()` resolves with the seconds it ran.
 */
function startLoad(t: Target, s: Sizes): { stop(): Promise<number> } {
  let stopping = false;
  const run = t.publish({ rate: s.fanout.rate, seconds: 24 * 3600, inflight: 16, until: () => stopping }, (i, at) => `b p 0.${i} ${at}`);
  return {
    async stop() {
      stopping = true;
      return (await run).seconds;
    },
  };
}

/** A mention of `agent` in the wake room, with `text`. */
function mention(agent: string, text: string): Buffer {
  const body = JSON.parse(sendBody(WAKE_ROOM, text)) as Record<string, unknown>;
  return postBytes('/v1/messages', JSON.stringify({ ...body, mentions: [agent] }), TOKEN);
}

async function send(conn: Conn, raw: Buffer): Promise<void> {
  const r = await conn.request(raw);
  if (r.status < 200 || r.status >= 300) throw new Error(`a mention was refused: ${r.status} ${r.body.toString().slice(0, 200)}`);
}

const stamps = (file: string): number[] =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((ns) => Number(ns) / 1e6)
    : [];

/** One mention at a time: send (wall clock, ms), then the time the command wrote when it started. */
async function agentRunWakes(conn: Conn, file: string, n: number, log: () => string): Promise<WakeFigures> {
  const lat = new Samples();
  for (let i = 0; i < n; i++) {
    const before = stamps(file).length;
    const sent = Date.now();
    await send(conn, mention(RUNNER, `@${RUNNER} wake ${i}`));
    const end = nowMs() + 30_000;
    let got = stamps(file);
    while (got.length <= before) {
      if (nowMs() > end) throw new Error(`svc agent run did not start its command for mention ${i} in 30 s:\n${log().slice(-2000)}`);
      await sleep(2);
      got = stamps(file);
    }
    lat.push(Math.max(0, got[before]! - sent));
    // Let the run finish and its ACK go out before the next mention (one wake, one run).
    await sleep(50);
  }
  const { p50_ms, p99_ms } = lat.summary();
  return { p50_ms, p99_ms, probes: lat.count };
}

/** One mention at a time to an open wait_for_messages call; from the send to its result. */
async function mcpWakes(conn: Conn, mcp: McpHttpSession, n: number, note: (m: string) => void): Promise<WakeFigures> {
  const lat = new Samples();
  for (let i = 0; i < n; i++) {
    const marker = `mcp wake ${i}`;
    const wait = mcp.call('wait_for_messages', { timeout_s: 30 }, 60_000);
    await sleep(WAIT_OPEN_MS);
    const t0 = nowMs();
    await send(conn, mention(WAITER, `@${WAITER} ${marker}`));
    const r = await wait;
    const t1 = nowMs();
    if (r.isError || !r.text.includes(marker)) {
      note(`wake: wait_for_messages ${i} returned without its mention: ${r.text.slice(0, 200)}`);
      continue;
    }
    lat.push(t1 - t0);
  }
  const { p50_ms, p99_ms } = lat.summary();
  return { p50_ms, p99_ms, probes: lat.count };
}
