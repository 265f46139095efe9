// The person-read concern in Postgres: its table, its read, and its effects as one conditional
// upsert of the batch's statement.

import type { PostgresAdapter } from '../part.js';
import type { PersonReadState } from './decide.js';
import { advancesMarker, type PersonReadEffect, type PersonReadOp } from './ops.js';
import type { PersonReadReads } from './records.js';

/** The table's name in the store's schema. */
const PERSON_READ_TABLE = 'person_read';

/** The table (`S` is the schema), as migration 6 of postgres/schema.ts created it before the part kept its own versions. */
const PERSON_READ_DDL = `
      CREATE TABLE IF NOT EXISTS S.person_read (
        person text NOT NULL,
        conv text NOT NULL,
        message_id text NOT NULL,
        at text NOT NULL,
        PRIMARY KEY (person, conv)
      );
    `;

export const postgresPersonRead: PostgresAdapter<PersonReadOp, PersonReadEffect, PersonReadState, PersonReadReads> = {
  migrations: [PERSON_READ_DDL],
  ctes(mine, sql) {
    // One row per key in a statement (an upsert cannot touch a row twice): the batch's newest wins.
    const newest = new Map<string, PersonReadEffect>();
    for (const e of mine) {
      const key = `${e.person}\u0000${e.marker.conv}`;
      const had = newest.get(key);
      if (!had || advancesMarker(had.marker, e.marker)) newest.set(key, e);
    }
    const rows = [...newest.values()].map((e) => sql.row([e.person, e.marker.conv, e.marker.message_id, e.marker.at]));
    // The same rule as advancesMarker, applied against the stored row.
    return [
      `INSERT INTO ${sql.table(PERSON_READ_TABLE)} AS p (person, conv, message_id, at) VALUES ${rows.join(', ')} ON CONFLICT (person, conv) DO UPDATE ` +
        'SET message_id = excluded.message_id, at = excluded.at WHERE p.at <= excluded.at AND p.message_id <> excluded.message_id',
    ];
  },
  // Decided on nothing stored: nothing to read or lock.
  prefetch: async () => ({}),
  reads: (rows, T) => ({
    markers: async (person) =>
      (await rows(`SELECT conv, message_id, at FROM ${T.table(PERSON_READ_TABLE)} WHERE person = $1`, [person])).map((r) => ({
        conv: String(r.conv),
        message_id: String(r.message_id),
        at: String(r.at),
      })),
  }),
};
