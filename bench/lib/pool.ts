// The parent side of bench/subscribers.ts: a child process holding N subscribers.

import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { ConnectCommand, Ready, Report } from '../subscribers.js';
import { stop, withFdLimit } from './procs.js';
import { Samples, sleep } from './stats.js';
import { ROOT } from './svc.js';
import { tsScript } from './ts-loader.js';

type Reply = Ready | { type: 'error'; error: string } | { type: 'phase' } | { type: 'samples'; values: number[] } | Report;

export class SubscriberPool {
  private waiting: ((r: Reply) => void)[] = [];
  /** Milliseconds the child took to connect every subscriber (to READY for attach). */
  connectMs = 0;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (m: Reply) => this.waiting.shift()?.(m));
    child.on('exit', () => {
      for (const w of this.waiting.splice(0)) w({ type: 'error', error: 'subscriber process exited' });
    });
  }

  /** Forks the subscriber process and connects `c.n` subscribers; throws if they cannot attach. */
  static async start(c: Omit<ConnectCommand, 'cmd'>): Promise<SubscriberPool> {
    // Through sh with the fd limit raised: one process may hold thousands of sockets (attach_10k).
    const [cmd, args] = withFdLimit(process.execPath, tsScript(path.join(ROOT, 'bench/subscribers.ts')));
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    const pool = new SubscriberPool(child);
    const r = await pool.ask({ cmd: 'connect', ...c });
    if (r.type !== 'ready') {
      await pool.close();
      throw new Error(`${c.kind} subscribers: ${r.type === 'error' ? r.error : r.type}${err ? `\n${err}` : ''}`);
    }
    pool.connectMs = r.ms;
    return pool;
  }

  private ask(msg: object): Promise<Reply> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.send(msg);
    });
  }

  /** Starts counting messages of phase `name` from zero. */
  async phase(name: string, keepLatency = true): Promise<void> {
    await this.ask({ cmd: 'phase', name, keepLatency });
  }

  async report(): Promise<Report> {
    const r = await this.ask({ cmd: 'report' });
    if (r.type !== 'report') throw new Error(`subscriber report failed: ${r.type === 'error' ? r.error : r.type}`);
    return r;
  }

  /** Polls until every subscriber has `expected` messages, or `ms` pass; returns the last report. */
  async waitFor(expected: number, ms: number): Promise<Report & { complete: boolean }> {
    const end = Date.now() + ms;
    let last = await this.report();
    let prevTotal = -1;
    let stalledSince = Date.now();
    while (Date.now() < end) {
      const min = Math.min(...last.received);
      if (min >= expected) return { ...last, complete: true };
      const total = last.received.reduce((a, b) => a + b, 0);
      // Nothing moved for 3 s: what is missing is not coming.
      if (total !== prevTotal) {
        prevTotal = total;
        stalledSince = Date.now();
      } else if (Date.now() - stalledSince > 3000) break;
      await sleep(100);
      last = await this.report();
    }
    return { ...last, complete: Math.min(...last.received) >= expected };
  }

  /** Every latency sample of the current phase. */
  async samples(): Promise<number[]> {
    const r = await this.ask({ cmd: 'samples' });
    if (r.type !== 'samples') throw new Error(`subscriber samples failed: ${r.type === 'error' ? r.error : r.type}`);
    return r.values;
  }

  async close(): Promise<void> {
    if (this.child.connected) this.child.send({ cmd: 'close' });
    await stop(this.child, 3000);
  }
}

/**
 * Subscribers spread over several child processes (so the client side is not what a large
 * fan-out measures), seen as one: subscriber k of process p is agent `a<p * per + k>`.
 */
export class PoolGroup {
  private constructor(
    private readonly pools: SubscriberPool[],
    /** From the first connect to the last child's READY (ms). */
    readonly connectMs: number,
  ) {}

  /** Forks `procs` children holding `c.n` subscribers between them, connecting all at once. */
  static async start(c: Omit<ConnectCommand, 'cmd' | 'first'>, procs: number): Promise<PoolGroup> {
    const per = Math.ceil(c.n / procs);
    const t0 = Date.now();
    const started = await Promise.allSettled(
      Array.from({ length: procs }, (_, p) => p * per)
        .filter((first) => first < c.n)
        .map((first) => SubscriberPool.start({ ...c, first, n: Math.min(per, c.n - first) })),
    );
    const pools = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) {
      await Promise.all(pools.map((p) => p.close()));
      throw (failed as PromiseRejectedResult).reason;
    }
    return new PoolGroup(pools, Date.now() - t0);
  }

  async phase(name: string, keepLatency = true): Promise<void> {
    await Promise.all(this.pools.map((p) => p.phase(name, keepLatency)));
  }

  /** Waits until every subscriber of every child has `expected` messages, or `ms` pass. */
  async waitFor(expected: number, ms: number): Promise<{ complete: boolean; received: number[]; errors: string[] }> {
    const rs = await Promise.all(this.pools.map((p) => p.waitFor(expected, ms)));
    return { complete: rs.every((r) => r.complete), received: rs.flatMap((r) => r.received), errors: rs.flatMap((r) => r.errors) };
  }

  /** Every latency sample of the current phase over all children. */
  async samples(): Promise<Samples> {
    const all = new Samples();
    for (const values of await Promise.all(this.pools.map((p) => p.samples()))) all.merge(values);
    return all;
  }

  async close(): Promise<void> {
    await Promise.all(this.pools.map((p) => p.close()));
  }
}
