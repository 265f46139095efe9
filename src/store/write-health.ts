// Whether the store accepts writes. A full disk refuses every write until space returns; the
// operator needs one line saying so (not a stack trace per refused write), and /readyz must say
// not-ready meanwhile so a load balancer stops sending writes here. Once no write arrives (the
// balancer has drained us), only a probe can notice that space is back, so `ping` probes, paced.

import { StoreError, type Store } from './types.js';

export interface WriteHealthOptions {
  /** Logs one line (level first). */
  log?: (level: 'warn' | 'info', msg: string, fields?: Record<string, unknown>) => void;
  /** Throws when a small write to the store's disk fails (a full disk). */
  probe: () => void;
  clock?: () => number;
  /** At most one "refusing writes" line per this many ms. */
  logEveryMs?: number;
  /** At most one probe per this many ms while refusing. */
  probeEveryMs?: number;
}

/** Tracks refused writes; pure apart from the injected log, probe and clock. */
export class WriteHealth {
  private refusing = false;
  private refused = 0;
  private unlogged = 0;
  private lastLogAt = -Infinity;
  private lastProbeAt = -Infinity;
  private readonly clock: () => number;

  constructor(private readonly o: WriteHealthOptions) {
    this.clock = o.clock ?? Date.now;
  }

  get accepting(): boolean {
    return !this.refusing;
  }

  /** A write reached the disk. */
  succeeded(): void {
    if (!this.refusing) return;
    this.o.log?.('info', 'store accepts writes again', { refused_writes: this.refused });
    this.refusing = false;
    this.refused = 0;
    this.unlogged = 0;
    this.lastLogAt = -Infinity;
  }

  /** A write failed; only `unavailable` (the disk refused) counts, conflicts are the caller's. */
  failed(err: unknown): void {
    if (!(err instanceof StoreError) || err.code !== 'unavailable') return;
    this.refusing = true;
    this.refused++;
    this.unlogged++;
    const now = this.clock();
    if (now - this.lastLogAt < (this.o.logEveryMs ?? 60_000)) return;
    this.lastLogAt = now;
    this.o.log?.('warn', 'store refuses writes; clients get 503 and /readyz answers not-ready until it accepts them again', {
      error: err.message,
      refused_writes: this.unlogged,
    });
    this.unlogged = 0;
  }

  /** While refusing: probes the disk (paced); a probe that succeeds ends the refusal. */
  check(): boolean {
    if (!this.refusing) return true;
    const now = this.clock();
    if (now - this.lastProbeAt < (this.o.probeEveryMs ?? 1000)) return false;
    this.lastProbeAt = now;
    try {
      this.o.probe();
    } catch {
      return false;
    }
    this.succeeded();
    return true;
  }
}

/** Routes the store's writes through `health`, and makes `ping` (readiness) reflect it. */
export function watchWrites(store: Store, health: WriteHealth): Store {
  const write = store.write.bind(store);
  const sync = store.sync.bind(store);
  const ping = store.ping.bind(store);
  const watched = <T>(p: Promise<T>): Promise<T> =>
    p.then(
      (v) => {
        health.succeeded();
        return v;
      },
      (err: unknown) => {
        health.failed(err);
        throw err;
      },
    );
  store.write = (ops) => watched(write(ops));
  store.sync = () => watched(sync());
  store.ping = async () => (await ping()) && health.check();
  return store;
}
