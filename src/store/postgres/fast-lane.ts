// Group commit for the common write: batches that decide nothing on stored state but the novelty
// of their room messages (write.ts `optimistic`). While one group's statement is in flight, the
// batches that arrive wait and then go together as the next group: one prepared statement
// (append-sql.ts), one COMMIT and one WAL flush for all of them.
// Commits are serialized by the event counter row anyway, so grouping is what lets throughput
// grow with concurrency. (Two groups in flight at once were tried: the second waits for the
// counter row in the database instead of here, but groups come out smaller, and on a host short
// of CPU the extra commits cost more than the overlap gains. Nor did sending the next group before
// answering the last one's writers: 10,782-10,952 messages/s against 10,226-11,236.) A group in
// which some message id is already stored fails on its key as a whole, and one whose basis guard
// finds a changed record (tentative.ts) writes nothing; its batches then go the long way one by
// one, which reports `exists` for the stored message and `stale` for the batch decided on the old
// record.

import type pg from 'pg';
import { resolveIntents } from '../intents.js';
import type { WriteOp, WriteResult } from '../types.js';
import { isRace, storeErrorOf } from './errors.js';
import { appendStatement } from './append-sql.js';
import type { Tables } from './tables.js';
import { basisOf, decidedRooms } from './basis.js';
import { emptyPrefetch, NO_PARTS, viewOf, writeBatch, type ExpectEvents } from './write.js';
import type { AnyPart } from '../part.js';

interface Pending {
  ops: readonly WriteOp[];
  expect: ExpectEvents;
  resolve: (r: WriteResult) => void;
  reject: (err: unknown) => void;
}

/** Effects per group: keeps a statement well under the 65535 parameters one query may bind. */
const MAX_EFFECTS = 1500;

export class FastLane {
  private queue: Pending[] = [];
  private running = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly T: Tables,
    private readonly parts: readonly AnyPart[],
    /** Whether another instance reads the events a notification carries (feed.ts `othersListen`). */
    private readonly carry: () => boolean,
  ) {}

  write(ops: readonly WriteOp[], expect: ExpectEvents): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ops, expect, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        let n = 0;
        let effects = 0;
        while (n < this.queue.length && (n === 0 || effects + this.queue[n]!.ops.length * 3 <= MAX_EFFECTS))
          effects += this.queue[n++]!.ops.length * 3;
        await this.group(this.queue.splice(0, n));
      }
    } finally {
      this.running = false;
    }
  }

  private async group(batch: Pending[]): Promise<void> {
    const decided: { p: Pending; r: ReturnType<typeof resolveIntents> }[] = [];
    for (const p of batch) {
      try {
        decided.push({ p, r: resolveIntents(viewOf(emptyPrefetch()), p.ops, NO_PARTS) });
      } catch (err) {
        p.reject(err);
      }
    }
    if (decided.length === 0) return;
    const st = appendStatement(
      this.T,
      decided.flatMap((d) => d.r.effects),
      decided.flatMap((d) => basisOf(d.p.ops)),
      decidedRooms(decided.flatMap((d) => d.p.ops)),
      this.carry(),
    );
    // One by one, the long way: a message id already stored (a race), a record of some message's
    // basis changed (only those messages are refused), or effects that are not appends.
    const oneByOne = () =>
      Promise.all(decided.map(({ p }) => writeBatch(this.pool, this.T, this.parts, p.ops, p.expect).then(p.resolve, p.reject)));
    if (!st) {
      await oneByOne();
      return;
    }
    for (const { p, r } of decided) p.expect(r.effects.flatMap((e) => (e.op === 'event.append' ? [e.event.id] : [])));
    let last: number;
    try {
      const r = await this.pool.query<{ last: string }>({ name: st.name, text: st.text, values: st.values });
      if (r.rows.length === 0) {
        await oneByOne();
        return;
      }
      last = Number(r.rows[0]!.last);
    } catch (err) {
      if (isRace(err)) {
        await oneByOne();
        return;
      }
      const e = storeErrorOf(err);
      for (const { p } of decided) p.reject(e);
      return;
    }
    let seq = last - st.events.length + 1;
    for (const { p, r } of decided) {
      const events = r.effects
        .filter((e) => e.op === 'event.append')
        .map((e) => ({ seq: seq++, event: (e as { event: WriteResult['events'][number]['event'] }).event }));
      p.resolve({ outcomes: r.outcomes, events });
    }
  }
}
