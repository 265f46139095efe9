// A pairing's small durable state, kept in the store (any instance can resume the relay): the last
// event sequence number its outbox has dealt with, and whether the peer has ever answered. After a
// delivery the outbox awaits the write; moving past messages that are not this pairing's is only
// written within a second, since re-reading those after a crash sends nothing.

import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { PairingState, Store } from '../store/types.js';

export type CursorState = PairingState;

const LAZY_SAVE_MS = 1000;

export class PairingCursor {
  private state: CursorState;
  private written: string;
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private forgotten = false;
  /** Resolves once the stored state is loaded (a new pairing starts at the end of the log). */
  readonly loaded: Promise<void>;

  /**
   * `legacyFile`: where releases before the store kept it wrote this cursor; read once when the
   * store has none, then removed.
   */
  constructor(
    private readonly store: Store,
    private readonly pairingId: string,
    legacyFile?: string,
  ) {
    this.state = { seq: 0, answered: false };
    this.written = '';
    this.loaded = this.load(legacyFile);
  }

  private async load(legacyFile: string | undefined): Promise<void> {
    const stored = await this.store.getPairingState(this.pairingId);
    if (stored) {
      this.state = stored;
      this.written = JSON.stringify(stored);
      return;
    }
    this.state = (legacyFile && readLegacy(legacyFile)) || { seq: await this.store.lastEventSeq(), answered: false };
    await this.write();
    if (legacyFile) rmSync(legacyFile, { force: true });
  }

  get seq(): number {
    return this.state.seq;
  }

  get answered(): boolean {
    return this.state.answered;
  }

  /** Moves the cursor in memory; the store follows within a second (or at the next commit or flush). */
  advance(seq: number): void {
    if (seq === this.state.seq) return;
    this.state = { ...this.state, seq };
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush().catch(() => {});
      }, LAZY_SAVE_MS);
      this.timer.unref();
    }
  }

  /** Changes the state and resolves once it is durable. */
  async commit(next: Partial<CursorState>): Promise<void> {
    await this.loaded;
    this.state = { ...this.state, ...next };
    await this.flush();
  }

  /** Writes the current state if the store is behind; writes never overlap. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.chain = this.chain
      .catch(() => {})
      .then(() => this.loaded)
      .then(() => this.write());
    return this.chain;
  }

  /** Forgets the state (the pairing was removed): a re-added pairing starts at the end of the log. */
  async forget(): Promise<void> {
    this.forgotten = true;
    clearTimeout(this.timer);
    await this.chain.catch(() => {});
    await this.loaded.catch(() => {});
    await this.store.write([{ op: 'pairing.state', pairing_id: this.pairingId, delete: true }]);
  }

  private async write(): Promise<void> {
    const text = JSON.stringify(this.state);
    if (this.forgotten || text === this.written) return;
    await this.store.write([{ op: 'pairing.state', pairing_id: this.pairingId, set: { ...this.state } }]);
    this.written = text;
  }
}

function readLegacy(file: string): CursorState | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as Partial<CursorState>;
    if (typeof v.seq === 'number' && Number.isSafeInteger(v.seq) && v.seq >= 0) return { seq: v.seq, answered: v.answered === true };
  } catch {
    // A torn or hand-edited file: start over at the end of the log.
  }
  return undefined;
}
