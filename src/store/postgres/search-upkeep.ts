// Postgres's search index kept up off the sends (#43 part 1). The GIN index over the messages' words
// (search.ts) takes each new message into its pending list; when the list passes the index's
// gin_pending_list_limit, the insert that crossed it merges the whole list into the index inside its
// own statement, and that send (with every send of its group commit) waits: at the default 4 MB,
// once every second or two of a full ingest, the sends' p99 13-15 ms against 9 without the merges.
// Migration 12 raises the limit to 32 MB, so inserts no longer merge in practice, and each instance
// that wrote messages merges the list itself once a second (gin_clean_pending_list), on a pooled
// connection no request waits for. Searches read the pending list as well as the index, so they
// stay exact and see every committed message. The limit stays as the backstop when no instance
// can merge (one whose role does not own the index: it says so once and stops trying).

import type pg from 'pg';
import { quoteIdent } from './schema.js';
import type { Tables } from './tables.js';

/** The search index of a schema's messages, qualified (migration 1 names it). */
export const searchIndexOf = (schema: string): string => `${quoteIdent(schema)}.messages_words`;

/** How often an instance that wrote merges the pending list. */
export const MERGE_EVERY_MS = 1000;

/** PostgreSQL's SQLSTATE for a missing privilege (here: not the index's owner). */
const INSUFFICIENT_PRIVILEGE = '42501';

export class SearchUpkeep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Merges done (for tests). */
  merges = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly T: Tables,
    private readonly log: (msg: string) => void,
    private readonly everyMs = MERGE_EVERY_MS,
  ) {}

  /** This instance committed messages: the pending list is merged within `everyMs`. */
  wrote(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.merge().finally(() => (this.running = undefined));
    }, this.everyMs);
    this.timer.unref();
  }

  /** Merges the pending list into the index now (nothing once closed or refused). */
  async merge(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.pool.query('SELECT gin_clean_pending_list($1::regclass)', [searchIndexOf(this.T.schema)]);
      this.merges++;
    } catch (err) {
      if ((err as { code?: string }).code !== INSUFFICIENT_PRIVILEGE) return;
      this.stopped = true;
      this.log(
        `store: the search index's pending list is merged by the sends that fill it (${(err as Error).message}: the role svc connects as does not own the index)`,
      );
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
