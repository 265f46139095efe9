// Group commit for the common write: batches that decide nothing on stored state but the novelty
// of their room messages (write.ts `optimistic`). While one group's statement is in flight, the
// batches that arrive wait and then go together as the next group: one statement, one COMMIT and
// one WAL flush for all of them (a prepared one when the group only appends: append-sql.ts). Commits are serialized by the event counter row anyway, so
// grouping is what lets throughput grow with concurrency. A group in which some message id is
// already stored fails on its key as a whole; its batches then go the long way one by one, which
// reports `exists` for the stored one.

import type pg from 'pg';
import { resolveIntents } from '../intents.js';
import type { WriteOp, WriteResult } from '../types.js';
import { isRace, storeErrorOf } from './errors.js';
import { effectsStatement } from './effects-sql.js';
import { appendStatement } from './append-sql.js';
import type { Tables } from './tables.js';
import { emptyPrefetch, viewOf, writeBatch, type ExpectEvents } from './write.js';

interface Pending {
  ops: readonly WriteOp[];
  expect: ExpectEvents;
  resolve: (r: WriteResult) => void;
  reject: (err: unknown) => void;
}

/** Effects per group: keeps a statement well under the 65535 parameters one query may bind. */
const MAX_EFFECTS = 1500;
const NONE = { rooms: new Set<string>(), agents: new Set<string>(), threads: new Set<string>(), dms: new Set<string>(), pairings: new Set<string>() };

/**
 * Groups in flight at once. The second waits in the database for the first's counter row lock, so
 * it runs the moment the first commits instead of after the first's answer came back and it was
 * sent: the round trip and the wait for this event loop leave the serialized part of a commit.
 */
const DEPTH = 2;

export class FastLane {
  private queue: Pending[] = [];
  private inFlight = 0;
  /** Message ids of the groups in flight: a group holding one of them waits (see pump). */
  private readonly flying = new Map<string, number>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly T: Tables,
  ) {}

  write(ops: readonly WriteOp[], expect: ExpectEvents): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ops, expect, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < DEPTH) {
      let n = 0;
      let effects = 0;
      while (n < this.queue.length && (n === 0 || effects + this.queue[n]!.ops.length * 3 <= MAX_EFFECTS)) effects += this.queue[n++]!.ops.length * 3;
      // A retry of a message whose first send is in flight would wait in the database on that
      // group's key while holding the counter row the first one waits for (a deadlock the
      // database breaks after a second): it goes after the first group instead.
      const ids = this.queue.slice(0, n).flatMap((p) => p.ops.flatMap((op) => (op.op === 'message.insert' ? [op.record.message.id] : [])));
      if (ids.some((id) => this.flying.has(id))) return;
      const batch = this.queue.splice(0, n);
      this.inFlight++;
      for (const id of ids) this.flying.set(id, (this.flying.get(id) ?? 0) + 1);
      void this.group(batch).finally(() => {
        this.inFlight--;
        for (const id of ids) {
          const k = this.flying.get(id)!;
          if (k <= 1) this.flying.delete(id);
          else this.flying.set(id, k - 1);
        }
        this.pump();
      });
    }
  }

  private async group(batch: Pending[]): Promise<void> {
    const decided: { p: Pending; r: ReturnType<typeof resolveIntents> }[] = [];
    for (const p of batch) {
      try {
        decided.push({ p, r: resolveIntents(viewOf(emptyPrefetch()), p.ops) });
      } catch (err) {
        p.reject(err);
      }
    }
    if (decided.length === 0) return;
    const all = decided.flatMap((d) => d.r.effects);
    const prepared = appendStatement(this.T, all);
    const st = prepared ?? effectsStatement(this.T, NONE, all);
    for (const { p, r } of decided) p.expect(r.effects.flatMap((e) => (e.op === 'event.append' ? [e.event.id] : [])));
    let last = 0;
    try {
      const config: pg.QueryConfig = prepared ? { name: prepared.name, text: st.text, values: st.values } : { text: st.text, values: st.values };
      const r = await this.pool.query<{ last: string | null }>(config);
      last = Number(r.rows[0]?.last ?? 0);
    } catch (err) {
      if (isRace(err)) {
        await Promise.all(decided.map(({ p }) => writeBatch(this.pool, this.T, p.ops, p.expect).then(p.resolve, p.reject)));
        return;
      }
      const e = storeErrorOf(err);
      for (const { p } of decided) p.reject(e);
      return;
    }
    let seq = last - st.events.length + 1;
    for (const { p, r } of decided) {
      const events = r.effects.filter((e) => e.op === 'event.append').map((e) => ({ seq: seq++, event: (e as { event: WriteResult['events'][number]['event'] }).event }));
      p.resolve({ outcomes: r.outcomes, events });
    }
  }
}
