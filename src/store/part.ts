// A stored concern as one value (#39 parts 1 and 2). A concern (a folder of src/store/) keeps its
// records, its write ops and how they are decided, and one small adapter per backend; the value
// that ties them together is its StorePart. A feature that stores something declares its parts
// (src/feature.ts), the app opens the store with the parts of its features, and a backend makes
// the tables, decides the ops and applies the effects of those parts only. Nothing registers
// itself: the list a store is opened with is the whole of what it keeps.
//
// The core (rooms, agents, messages, conversations, events) is not a part: every store has it.

import type { Database, SqlValue } from 'sql.js';
import type pg from 'pg';
import type { Message, ServiceEvent } from '../protocol/types.js';

/**
 * The op, outcome and effect types of each stored concern, by concern: its ops.ts adds its row
 * (`declare module`), so the store's contract (write-ops.ts, effects.ts) joins them without a list
 * that names every concern or an import of a part.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each concern's ops.ts.
export interface PartTypes {}

type PartRow = PartTypes[keyof PartTypes];
/** The write ops the parts decide (write-ops.ts joins them to the core's). */
export type PartOp = PartRow['op'];
/** What those ops did. */
export type PartOutcome = PartRow['outcome'];
/** What those ops do to stored state (effects.ts joins them to the core's). */
export type PartEffect = PartRow['effect'];

/** An op or effect as the store passes it through: its name, and fields only its part reads. */
export interface Tagged {
  op: string;
}

/** What a decision may put: its part's effects and events to append. */
export type Put<E extends Tagged> = (e: E | { op: 'event.append'; event: ServiceEvent }) => void;

/** The core state a part's decision may read (a part of StateView, effects.ts). */
export interface CoreView {
  hasMessage(id: string): boolean;
}

/** What the in-memory backend's core tells a part's adapter (its own records are the part's). */
export interface MemoryCore {
  /** Whether a message of `conv` was created with an event seq strictly between `after` and `before`. */
  createdBetween(conv: string, after: number, before: number): boolean;
}

/** A part's state with the batch's earlier effects laid over it (so later ops of a batch see them). */
export type Overlaid<S, E> = S & { note(e: E): void };

/** Runs one (cached, prepared) sqlite statement with parameters. */
export type SqlRun = (sql: string, params?: SqlValue[]) => void;

/** Reads rows with one (cached, prepared) sqlite statement. */
export type SqlAll = (sql: string, params: SqlValue[]) => SqlValue[][];

/** A concern's part of the in-memory backend: its records, what its effects do to them, its reads. */
export interface MemoryAdapter<E, S, R> {
  /** Applies one of the part's effects (the backend asks `owns` first). */
  apply(e: E): void;
  /** Drops what it keeps about a message that was deleted (a `message.forget` effect). */
  forget?(messageId: string): void;
  /**
   * Rewrites what it keeps that shows a redacted message's content (a copy of it, not a reference)
   * to show its tombstone instead (a `message.scrub` effect, #40 part 3).
   */
  scrub?(messageId: string, tombstone: Message): void;
  /**
   * The seq of a stored event that an effect replaces, asked just before the effect is applied
   * (`lastSeq`: the newest event's, appended by the batch's effect before this one). The store
   * drops that event, leaving a hole in the seqs as a purge does: a part keeps only the newest
   * event of a kind per conversation this way.
   */
  replaces?(e: E, lastSeq: number): number | undefined;
  /** The state its ops are decided on (the stored records: the resolver does not change them). */
  readonly state: S;
  readonly reads: R;
}

/**
 * One version of a part's sqlite tables: SQL, or SQL and a step in code for what SQL cannot say
 * idempotently (sqlite has no ADD COLUMN IF NOT EXISTS). `fill` runs after `sql`, in the same
 * transaction, and must be deterministic like it.
 */
export type SqliteMigration = string | { sql: string; fill?: (db: Database) => void };

/** A concern's part of the sqlite backend: live writes, journal replay and checkpoints alike. */
export interface SqliteAdapter<E, S, R> {
  /**
   * Its tables, one entry per version (applied in order at open, each once; the part's version is
   * kept in `meta`). An applied entry is never run again: a new column is a new entry. The first
   * entry is the text of the core migration that used to create the tables, with IF NOT EXISTS, so
   * a database made before the part had its own versions takes it without change.
   */
  readonly migrations: readonly SqliteMigration[];
  /** Applies one of the part's effects inside the caller's transaction. */
  apply(run: SqlRun, e: E): void;
  /** Drops what it keeps about a deleted message, inside the caller's transaction. */
  forget?(run: SqlRun, messageId: string): void;
  /** As MemoryAdapter.scrub, inside the caller's transaction. */
  scrub?(run: SqlRun, messageId: string, tombstone: Message): void;
  state(all: SqlAll): S;
  reads(all: SqlAll): R;
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

/** Runs a query, gives its rows (the backend's own, with its error mapping). */
export type PgRows = (text: string, values: unknown[]) => Promise<Record<string, unknown>[]>;

/** The store's schema as a part's SQL names it. */
export interface PgTables {
  /** A table of the store's schema, quoted and qualified. */
  table(name: string): string;
  /** The core's messages table (qualified). */
  readonly messages: string;
}

/** A concern's part of the Postgres backend. */
export interface PostgresAdapter<O, E, S, R> {
  /** As SqliteAdapter.migrations, with `S.` standing for the quoted schema. */
  readonly migrations: readonly string[];
  /**
   * The data-modifying CTEs for the part's effects of a batch (`mine`, in batch order); `state` is
   * what `prefetch` read for the batch, when it ran (a copy writes without one).
   */
  ctes(mine: readonly E[], sql: PgStatement, state?: S): string[];
  /**
   * The CTEs that drop what it keeps about the batch's deleted messages; `ids` is the placeholder
   * of their ids as a `text[]` parameter. Applied before its own CTEs' effects of the same batch.
   */
  forget?(ids: string, sql: PgStatement): string[];
  /** As MemoryAdapter.scrub: the CTEs that rewrite rows stored before the batch. */
  scrub?(messageId: string, tombstone: Message, sql: PgStatement): string[];
  /** Reads (and row-locks) what the batch's ops of this part are decided on, inside its transaction. */
  prefetch(c: pg.ClientBase, T: PgTables, mine: readonly O[]): Promise<S>;
  reads(rows: PgRows, T: PgTables): R;
}

/**
 * One stored concern. `O` its write ops, `U` their outcomes, `E` its effects, `S` the state its
 * ops are decided on, `R` the reads it offers through `Store.part`.
 */
export interface StorePart<O extends Tagged = Tagged, U = unknown, E extends Tagged = Tagged, S = unknown, R = unknown> {
  /** The concern's name (its folder's), for errors and the part's version in each backend. */
  readonly name: string;
  /** The write ops it decides. */
  readonly ops: readonly O['op'][];
  /** Whether an effect is one of its own. */
  owns(e: Tagged): e is E;
  /** Core records its ops are decided on besides its own (the messages they name). */
  needs(op: O): { messages?: readonly string[] };
  /** Decides one of its ops against the batch's state; puts its effects; gives the outcome. */
  decide(core: CoreView, state: Overlaid<S, E>, op: O, put: Put<E>): U;
  /** Lays the batch's effects over `base`. */
  overlay(base: S): Overlaid<S, E>;
  memory(core: MemoryCore): MemoryAdapter<E, S, R>;
  readonly sqlite: SqliteAdapter<E, S, R>;
  readonly postgres: PostgresAdapter<O, E, S, R>;
  /**
   * What `svc store copy` carries of it, as effects the target applies: `page` for each page of
   * copied messages (written with them), `rest` once after every page, for the copied
   * conversations (`room:<id>`, `thread:<id>`, `dm:<id>`). Without either it is not copied.
   */
  readonly copy?: {
    page?(reads: R, messageIds: readonly string[]): Promise<E[]>;
    rest?(reads: R, convs: readonly string[]): Promise<E[]>;
  };
}

// biome-ignore lint/suspicious/noExplicitAny: a list holds parts of every type; each narrows its own.
export type AnyPart = StorePart<any, any, any, any, any>;

/** The reads of a part, from its type. */
export type ReadsOf<P> = P extends StorePart<Tagged, unknown, Tagged, unknown, infer R> ? R : never;

/** The part of `parts` that decides `op`, if any. */
export const partFor = (parts: readonly AnyPart[], op: Tagged): AnyPart | undefined => parts.find((p) => p.ops.includes(op.op));

/** The part of `parts` that owns effect `e`, if any. */
export const ownerOf = (parts: readonly AnyPart[], e: Tagged): AnyPart | undefined => parts.find((p) => p.owns(e));
