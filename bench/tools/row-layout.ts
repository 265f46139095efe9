// What the stored layout costs a message: the rows one ingested message writes (its messages row
// with the `id` and `messages_by_conv` indexes and the AUTOINCREMENT counter, its event row with the
// `events_by_message` index), in sql.js, in turns of 25 as the store commits them, against layouts
// that write less. It answers how much of the ingest's gap to the baseline a change of the stored
// layout could close (docs/performance.md). The search index is left out: every layout pays it.
//
//   node --import tsx bench/tools/row-layout.ts [messages=40000] [rounds=4]
//
// Prints the main thread's CPU per message for each layout, each round in turn.

import initSqlJs from 'sql.js';

interface Layout {
  /** `seq INTEGER PRIMARY KEY AUTOINCREMENT` (a sqlite_sequence row updated per insert) or a plain rowid. */
  autoincrement: boolean;
  /** An events row per message. */
  events: boolean;
  /** The partial `events_by_message` index (a message's event seq, for receipts). */
  eventsByMessage: boolean;
}

const LAYOUTS: Record<string, Layout> = {
  'as stored': { autoincrement: true, events: true, eventsByMessage: true },
  'no AUTOINCREMENT': { autoincrement: false, events: true, eventsByMessage: true },
  'no events_by_message': { autoincrement: true, events: true, eventsByMessage: false },
  'no event row': { autoincrement: true, events: false, eventsByMessage: false },
  neither: { autoincrement: false, events: false, eventsByMessage: false },
};

const TURN = 25;
const [messages = 40_000, rounds = 4] = process.argv.slice(2).map(Number);
const SQL = await initSqlJs();
const body = JSON.stringify({
  id: 'msg_0',
  room_id: 'ingest',
  from: { type: 'agent', id: 'pub' },
  parts: [{ kind: 'text', text: 'hello there, a message of ordinary length' }],
  mentions: [],
  created_at: new Date().toISOString(),
});

/** CPU µs per message of `n` messages written in turns of TURN. */
function run(l: Layout, n: number): number {
  const db = new SQL.Database();
  db.run(`
    CREATE TABLE messages (seq INTEGER PRIMARY KEY ${l.autoincrement ? 'AUTOINCREMENT' : ''}, id TEXT NOT NULL UNIQUE,
      conv TEXT NOT NULL, event_id TEXT NOT NULL, body TEXT NOT NULL);
    CREATE INDEX messages_by_conv ON messages (conv, seq);
    CREATE TABLE events (seq INTEGER PRIMARY KEY, message_id TEXT, body TEXT NOT NULL);
    ${l.eventsByMessage ? 'CREATE INDEX events_by_message ON events (message_id) WHERE message_id IS NOT NULL;' : ''}
  `);
  const message = db.prepare('INSERT INTO messages (id, conv, event_id, body) VALUES (?, ?, ?, ?)');
  const event = db.prepare('INSERT INTO events (seq, message_id, body) VALUES (?, ?, ?)');
  const c0 = process.cpuUsage();
  for (let seq = 1; seq <= n; ) {
    db.run('BEGIN');
    for (const end = seq + TURN; seq < end && seq <= n; seq++) {
      const id = `msg_${seq.toString(36)}${Math.random().toString(36).slice(2, 12)}`;
      message.run([id, 'room:ingest', `evt_${seq}`, body]);
      if (l.events) event.run([seq, id, '{"type":"message.created","message":null}']);
    }
    db.run('COMMIT');
  }
  const c = process.cpuUsage(c0);
  message.free();
  event.free();
  db.close();
  return (c.user + c.system) / n;
}

for (let r = 1; r <= rounds; r++) {
  const line = Object.entries(LAYOUTS).map(([name, l]) => `${name} ${run(l, messages).toFixed(1)}`);
  console.log(`round ${r} (µs per message): ${line.join(' | ')}`);
}
