// One sql.js connection with its prepared statements cached per SQL string (db.run would parse the
// SQL on every call), and a count of statements that ran (tells whether a failed batch changed
// anything). Rows of one table go in with multi-row INSERTs (`insertRows`): each sql.js statement
// call costs a bind, a step and a reset through wasm, and a row's own work is a fraction of that.

import type { Database, SqlValue, Statement } from 'sql.js';

/** Most rows one multi-row INSERT carries (a power of two: see insertRows). */
const MAX_ROWS = 32;
/** Multi-row INSERT texts by head, then tuple, then row count. */
const ROWS_SQL = new Map<string, Map<string, string[]>>();

function rowsSql(head: string, tuple: string, n: number): string {
  let byTuple = ROWS_SQL.get(head);
  if (!byTuple) ROWS_SQL.set(head, (byTuple = new Map()));
  let texts = byTuple.get(tuple);
  if (!texts) byTuple.set(tuple, (texts = []));
  return (texts[n] ??= `${head} VALUES ${Array.from({ length: n }, () => tuple).join(', ')}`);
}

export class Db {
  private readonly stmts = new Map<string, Statement>();
  /** Statements run successfully since open. */
  statements = 0;

  constructor(readonly raw: Database) {}

  private stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.raw.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** Runs one statement (a bound method: handed to applyOps as its runner). */
  readonly run = (sql: string, params: SqlValue[] = []): void => {
    const s = this.stmt(sql);
    try {
      s.bind(params);
      s.step();
      this.statements++;
    } finally {
      s.reset();
    }
  };

  /**
   * Inserts rows with as few statements as possible: `head` is the statement up to VALUES (e.g.
   * `INSERT INTO t (a, b)`), `tuple` one row's placeholders (e.g. `(?, ?)`), `params` the rows'
   * values one after the other, `width` per row. Statements of 32, 16, ... 1 rows, so that at most
   * six SQL texts per table are prepared; rows go in in order.
   */
  insertRows(head: string, tuple: string, width: number, params: SqlValue[]): void {
    const rows = params.length / width;
    let at = 0;
    for (let n = MAX_ROWS; n >= 1; n >>= 1) {
      while (rows - at >= n) {
        this.run(rowsSql(head, tuple, n), n === rows ? params : params.slice(at * width, (at + n) * width));
        at += n;
      }
    }
  }

  all(sql: string, params: SqlValue[] = []): SqlValue[][] {
    const s = this.stmt(sql);
    const rows: SqlValue[][] = [];
    try {
      s.bind(params);
      while (s.step()) rows.push(s.get());
    } finally {
      s.reset();
    }
    return rows;
  }

  one(sql: string, params: SqlValue[] = []): SqlValue[] | undefined {
    const s = this.stmt(sql);
    try {
      s.bind(params);
      return s.step() ? s.get() : undefined;
    } finally {
      s.reset();
    }
  }

  /** Each row's first column parsed as JSON. */
  bodies<T>(sql: string, params: SqlValue[] = []): T[] {
    return this.all(sql, params).map((r) => JSON.parse(r[0] as string) as T);
  }

  body<T>(sql: string, params: SqlValue[]): T | undefined {
    const r = this.one(sql, params);
    return r && (JSON.parse(r[0] as string) as T);
  }

  /** Frees the statements and closes the database. */
  close(): void {
    for (const s of this.stmts.values()) s.free();
    this.stmts.clear();
    this.raw.close();
  }
}
