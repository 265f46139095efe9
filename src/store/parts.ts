// How a backend and a stored concern meet (#39 part 1). A concern (a folder of src/store/) keeps its
// records, intents and SQL in its own folder and gives each backend one small part; the backend
// holds a list of the parts it was built with and hands each effect it does not own itself to
// them in turn. Nothing registers itself: the backend's constructor names its parts.

import type { SqlValue } from 'sql.js';
import type { Effect } from './effects.js';

/** A concern's part of the in-memory backend: its records and what its effects do to them. */
export interface MemoryPart {
  /** Applies `e` when it is one of this concern's effects; false when it is not. */
  apply(e: Effect): boolean;
}

/** Runs one (cached, prepared) sqlite statement with parameters. */
export type SqlRun = (sql: string, params?: SqlValue[]) => void;

/** A concern's part of the sqlite backend: live writes, journal replay and checkpoints alike. */
export interface SqlitePart {
  /** Applies `e` inside the caller's transaction when it is one of this concern's effects; false when it is not. */
  apply(run: SqlRun, e: Effect): boolean;
}

/** What a Postgres part is given to add to a batch's one statement (postgres/effects-sql.ts). */
export interface PgStatement {
  /** Adds a parameter; gives its placeholder (`$n`). */
  param(v: unknown): string;
  /** A row of parameters as `($n, $m, ...)`. */
  row(params: unknown[]): string;
  /** A table of the store's schema, quoted and qualified. */
  table(name: string): string;
}

/** A concern's part of the Postgres backend. */
export interface PostgresPart {
  /** Whether `e` is one of this concern's effects. */
  owns(e: Effect): boolean;
  /** The data-modifying CTEs for the concern's effects of a batch (`mine`, in batch order). */
  ctes(mine: readonly Effect[], sql: PgStatement): string[];
}
