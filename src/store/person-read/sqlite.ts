// The person-read concern in sqlite: its table, and its one effect as a conditional upsert.

import type { SqliteAdapter } from '../part.js';
import type { PersonReadState } from './decide.js';
import type { PersonReadEffect } from './ops.js';
import type { PersonReadReads } from './records.js';

/** The table, as migration 9 of sqlite/schema.ts created it before the part kept its own versions. */
const PERSON_READ_DDL = `
      CREATE TABLE IF NOT EXISTS person_read (
        person TEXT NOT NULL,
        conv TEXT NOT NULL,
        message_id TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (person, conv)
      ) WITHOUT ROWID;
    `;

export const sqlitePersonRead: SqliteAdapter<PersonReadEffect, PersonReadState, PersonReadReads> = {
  migrations: [PERSON_READ_DDL],
  apply(run, e) {
    // The same rule as advancesMarker (ops.ts): not older, another message.
    const m = e.marker;
    run(
      'INSERT INTO person_read (person, conv, message_id, at) VALUES (?, ?, ?, ?) ON CONFLICT (person, conv) DO UPDATE ' +
        'SET message_id = excluded.message_id, at = excluded.at WHERE person_read.at <= excluded.at AND person_read.message_id <> excluded.message_id',
      [e.person, m.conv, m.message_id, m.at],
    );
  },
  state: () => ({}),
  reads: (all) => ({
    markers: async (person) =>
      all('SELECT conv, message_id, at FROM person_read WHERE person = ?', [person]).map(([conv, message_id, at]) => ({
        conv: String(conv),
        message_id: String(message_id),
        at: String(at),
      })),
  }),
};
