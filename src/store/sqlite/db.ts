// One sql.js connection with its prepared statements cached per SQL string (db.run would parse the
// SQL on every call), and a count of statements that ran (tells whether a failed batch changed
// anything).

import type { Database, SqlValue, Statement } from 'sql.js';

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
