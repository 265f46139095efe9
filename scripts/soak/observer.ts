// An SSE observer of the whole feed.

import type { TestServer } from '../../test/helpers/server.js';
import { SseClient } from '../../test/helpers/live.js';
import { ADMIN, sleep } from './options.js';
import { gOf, Seen, sentAt } from './seen.js';
import { cur, error } from './stats.js';

/** An SSE observer that counts every message it is shown and resumes with Last-Event-ID after a drop. */
export class Observer {
  readonly seen = new Seen();
  private c: SseClient | undefined;
  private lastId: string | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  reconnects = 0;

  constructor(
    private readonly s: TestServer,
    private readonly measureLag: boolean,
  ) {}

  async start(): Promise<void> {
    await this.open();
    this.running = this.watch();
  }

  private async open(): Promise<void> {
    const c = await SseClient.open(this.s, { token: ADMIN, ...(this.lastId ? { lastEventId: this.lastId } : {}) });
    if (c.status !== 200) throw new Error(`SSE refused: ${c.status} ${c.body}`);
    // Keep no frames: the observer must not be the process that grows.
    c.frames.push = (f) => {
      if (f.id) this.lastId = f.id;
      if (f.event === 'stream.replay_gap') error('SSE replay gap');
      // The first observer sees every event the store keeps: it counts what receipts add to it.
      if (f.event === 'message.receipts' && this.measureLag) {
        cur.receiptEvents++;
        cur.receiptBytes += f.data?.length ?? 0;
      }
      if (f.event !== 'message.created') return;
      const g = gOf(f.json?.message);
      if (g === undefined) return;
      this.seen.add(g);
      if (this.measureLag && sentAt[g] !== undefined) cur.lagMs.push(Date.now() - sentAt[g]!);
    };
    this.c = c;
  }

  private async watch(): Promise<void> {
    while (!this.stopped) {
      await sleep(200);
      if (this.stopped || this.c?.ended === undefined) continue;
      this.reconnects++;
      await this.open().catch((err: unknown) => error(`SSE reconnect: ${(err as Error).message}`));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.c?.close();
    await this.running;
  }
}
