// The parent side of bench/subscribers.ts: a child process holding N subscribers.

import path from 'node:path';
import { fork, type ChildProcess } from 'node:child_process';
import type { ConnectCommand, Report } from '../subscribers.js';
import { stop } from './procs.js';
import { sleep } from './stats.js';
import { ROOT } from './svc.js';

type Reply = { type: 'ready' } | { type: 'error'; error: string } | { type: 'phase' } | Report;

export class SubscriberPool {
  private waiting: ((r: Reply) => void)[] = [];

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (m: Reply) => this.waiting.shift()?.(m));
    child.on('exit', () => {
      for (const w of this.waiting.splice(0)) w({ type: 'error', error: 'subscriber process exited' });
    });
  }

  /** Forks the subscriber process and connects `c.n` subscribers; throws if they cannot attach. */
  static async start(c: Omit<ConnectCommand, 'cmd'>): Promise<SubscriberPool> {
    const child = fork(path.join(ROOT, 'bench/subscribers.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    const pool = new SubscriberPool(child);
    const r = await pool.ask({ cmd: 'connect', ...c });
    if (r.type !== 'ready') {
      await pool.close();
      throw new Error(`${c.kind} subscribers: ${r.type === 'error' ? r.error : r.type}${err ? `\n${err}` : ''}`);
    }
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

  async close(): Promise<void> {
    if (this.child.connected) this.child.send({ cmd: 'close' });
    await stop(this.child, 3000);
  }
}
