// What a Postgres store remembers of the receipt records it decided on, so a flush to a room's
// readers need not read every reader's row again (#43 part 4: reading 100 rows a flush was a fifth
// of what a fan-out to 100 agents cost the database).
//
// Trust comes from the database, not from time: each write of a conversation's records gives the
// conversation a new random version (table receipt_versions, in the same statement), and what is
// remembered is valid only while the version read under the conversation's lock is the one it was
// remembered with. Another instance's write, a rolled-back one (its version never committed) and a
// copy all leave a version nobody here remembers, so the records are read again.

import { randomUUID } from 'node:crypto';
import { receiptKey, type ReceiptRecord } from './records.js';

/** Records remembered at most, over every conversation (the least recently written go first). */
const MAX_RECORDS = 50_000;

/** A conversation's known records by receiptKey; null: known to be absent. */
export type KnownRecords = Map<string, ReceiptRecord | null>;

interface Entry {
  version: string;
  records: KnownRecords;
}

export class ReceiptCache {
  readonly #convs = new Map<string, Entry>();
  #size = 0;

  /** What is remembered of `conv` at `version` (the one just read under its lock), if anything. */
  at(conv: string, version: string | undefined): KnownRecords | undefined {
    const e = this.#convs.get(conv);
    return e && version !== undefined && e.version === version ? e.records : undefined;
  }

  /**
   * Remembers `conv`'s records as a write leaves them at its new `version`: `known` (every record
   * that was current under the lock; the cache takes it over) with the write's own on top. Without
   * `known` it forgets.
   */
  written(conv: string, version: string, known: KnownRecords | undefined, own: readonly ReceiptRecord[]): void {
    this.#drop(conv);
    if (!known) return;
    const records = known;
    for (const r of own) records.set(receiptKey(r), r);
    this.#convs.set(conv, { version, records });
    this.#size += records.size;
    for (const [c] of this.#convs) {
      if (this.#size <= MAX_RECORDS) break;
      this.#drop(c);
    }
  }

  #drop(conv: string): void {
    const e = this.#convs.get(conv);
    if (!e) return;
    this.#size -= e.records.size;
    this.#convs.delete(conv);
  }
}

/** A fresh version for a write of receipts: unique across instances and databases. */
export const newVersion = (): string => randomUUID();
