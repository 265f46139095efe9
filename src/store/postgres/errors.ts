// What a failure from the database means for svc: the server is unreachable or restarting (the
// write is refused as `unavailable`, retried by the client), a race another transaction won (the
// batch is decided again against the new state), or a real error.

import { StoreError } from '../types.js';

interface PgLikeError {
  code?: string;
  message?: string;
}

/** SQLSTATEs of a lost race: unique_violation, serialization_failure, deadlock_detected. */
const RACE = new Set(['23505', '40001', '40P01']);

/** Another transaction changed what this one decided on: run it again. */
export function isRace(err: unknown): boolean {
  return RACE.has((err as PgLikeError)?.code ?? '');
}

/** The database cannot be reached or is shutting down / starting up. */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof StoreError) return err.code === 'unavailable';
  const e = err as PgLikeError & { errno?: number };
  const code = e?.code ?? '';
  // Class 08 connection exceptions, 57P01-57P03 (shutdown, crash shutdown, starting up), 53300 too many connections.
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN'].includes(code)) return true;
  const msg = e?.message ?? '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(
    msg,
  );
}

/** A StoreError for any database failure: `unavailable` when it is the connection, else rethrown as is. */
export function storeErrorOf(err: unknown): unknown {
  if (err instanceof StoreError) return err;
  if (isUnavailable(err)) return new StoreError('unavailable', `the database is unavailable: ${(err as Error).message ?? String(err)}`);
  return err;
}
