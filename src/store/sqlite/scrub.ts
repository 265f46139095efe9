// The last step of a redaction's scrub on sqlite (#40 part 3). Once the search database is rebuilt
// without the message (search-index.ts) and what held it is zeroed in the database's pages
// (`secure_delete`, schema.ts), a checkpoint writes those pages to svc.db and retires the journal
// generations that hold the message as it was sent. It is owed (meta \`scrub_checkpoint\`, written with the redaction) until
// one succeeds, so a restart runs it.

import type { Db } from './db.js';
import type { Checkpointer } from './engine/checkpoint.js';
import { messageOf } from './engine/turn.js';
import { REBUILD_KEY, SCRUB_CHECKPOINT_KEY } from './redaction-marks.js';

const OWED = `SELECT 1 FROM meta WHERE key = '${SCRUB_CHECKPOINT_KEY}'`;
const REBUILD_OWED = `SELECT 1 FROM meta WHERE key = '${REBUILD_KEY}'`;

/** What the scrub checkpoint needs of its store. */
interface ScrubHost {
  readonly db: Db;
  readonly closed: boolean;
  commitTurn(): void;
  log(msg: string): void;
  /** Whether the search database is being rebuilt (a redaction since the one this checkpoint follows). */
  searchRebuilding(): boolean;
}

export class ScrubCheckpoint {
  private running: Promise<void> | undefined;

  constructor(
    private readonly host: ScrubHost,
    private readonly checkpointer: Checkpointer,
  ) {}

  /** Whether the checkpoint is owed (the database says so) or running. */
  pending(): boolean {
    return this.running !== undefined || this.owed();
  }

  owed(): boolean {
    return this.host.db.one(OWED) !== undefined;
  }

  /** Whether a rebuild of the search database is owed (a stop interrupted it). */
  rebuildOwed(): boolean {
    return this.host.db.one(REBUILD_OWED) !== undefined;
  }

  /** Runs the checkpoint after any running one; the mark goes in the snapshot it writes. */
  run(): void {
    const h = this.host;
    if (h.closed) return;
    this.running = this.checkpointer
      .force(() => {
        h.commitTurn();
        h.db.run(`DELETE FROM meta WHERE key = '${SCRUB_CHECKPOINT_KEY}'`);
        // The search file is rebuilt (this checkpoint follows that); unless another redaction's is under way.
        if (!h.searchRebuilding()) h.db.run(`DELETE FROM meta WHERE key = '${REBUILD_KEY}'`);
      })
      .catch((err: unknown) => {
        h.log(`store: the checkpoint after a redaction failed (the next one completes it): ${messageOf(err)}`);
        if (!h.closed) h.db.run(`INSERT OR REPLACE INTO meta (key, value) VALUES ('${SCRUB_CHECKPOINT_KEY}', '1')`);
      })
      .finally(() => {
        this.running = undefined;
      });
  }
}
