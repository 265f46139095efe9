// A pairing's small durable state next to the database (`pairing-<id>.cursor`): the last event
// sequence number its outbox has dealt with, and whether the peer has ever answered. Writes are
// temp file + fsync + rename, off the request path: after a delivery they are awaited by the
// outbox; moving past messages that are not this pairing's is only written within a second, since
// re-reading those after a crash sends nothing.

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';

export interface CursorState {
  /** Last event sequence number relayed or passed over. */
  seq: number;
  /** The peer has answered a compatibility check at least once. */
  answered: boolean;
}

const LAZY_SAVE_MS = 1000;

/** Where a pairing's cursor lives: a file (sqlite backend) or only memory (memory backend). */
export class CursorFile {
  private state: CursorState;
  private written: string;
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private forgotten = false;

  /** Loads the cursor; a pairing seen for the first time starts at `initialSeq` (no backfill). */
  constructor(
    private readonly path: string | undefined,
    initialSeq: number,
  ) {
    const loaded = path ? readCursor(path) : undefined;
    this.state = loaded ?? { seq: initialSeq, answered: false };
    this.written = JSON.stringify(this.state);
    if (!loaded && path) writeFileSync(path, this.written, { mode: 0o600 });
  }

  get seq(): number {
    return this.state.seq;
  }

  get answered(): boolean {
    return this.state.answered;
  }

  /** Moves the cursor in memory; the file follows within a second (or at the next commit or flush). */
  advance(seq: number): void {
    if (seq === this.state.seq) return;
    this.state = { ...this.state, seq };
    if (this.path && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush().catch(() => {});
      }, LAZY_SAVE_MS);
      this.timer.unref();
    }
  }

  /** Changes the state and resolves once it is durable. */
  async commit(next: Partial<CursorState>): Promise<void> {
    this.state = { ...this.state, ...next };
    await this.flush();
  }

  /** Writes the current state if the file is behind; writes never overlap. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.chain = this.chain.catch(() => {}).then(() => this.write());
    return this.chain;
  }

  /** Deletes the file (the pairing was removed): a re-added pairing starts at the end of the log. */
  async forget(): Promise<void> {
    this.forgotten = true;
    clearTimeout(this.timer);
    await this.chain.catch(() => {});
    if (this.path) await rm(this.path, { force: true });
  }

  private async write(): Promise<void> {
    const text = JSON.stringify(this.state);
    if (!this.path || this.forgotten || text === this.written) return;
    const tmp = `${this.path}.${process.pid}.tmp`;
    try {
      const fh = await open(tmp, 'w', 0o600);
      try {
        await fh.writeFile(text);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, this.path);
      this.written = text;
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  }
}

function readCursor(path: string): CursorState | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as Partial<CursorState>;
    if (typeof v.seq === 'number' && Number.isSafeInteger(v.seq) && v.seq >= 0) return { seq: v.seq, answered: v.answered === true };
  } catch {
    // A torn or hand-edited file: start over at the end of the log (below).
  }
  return undefined;
}
