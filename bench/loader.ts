// Fills a sqlite store with N room messages over R rooms, straight through the store (no HTTP):
// large batches of `message.insert` + `event.append`, shaped as sendMessage would store them, then
// close() to checkpoint. One message in SEARCH_EVERY holds SEARCH_WORD (the search queries'
// word, ~1%). Prints one JSON line: {seconds, messages, db_bytes, cursors_file, search_cursors_file}.
//
//   node --import tsx bench/loader.ts --dir DIR --messages N --rooms R

import { writeFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { fqid, newId } from '../src/protocol/ids.js';
import type { Message, ServiceEvent } from '../src/protocol/types.js';
import type { WriteOp } from '../src/store/types.js';
import { NETWORK, PUBLISHER, SEARCH_WORD } from './lib/svc.js';

const args = process.argv.slice(2);
const arg = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1]! : dflt;
};
const dir = arg('--dir', '.');
const total = Number(arg('--messages', '1000000'));
const rooms = Number(arg('--rooms', '100'));
const BATCH = 2000;
/** Cursors kept per room for the history queries (random positions with a full page before them). */
const CURSORS_PER_ROOM = 50;
/** One message in SEARCH_EVERY holds SEARCH_WORD (about 1%). */
const SEARCH_EVERY = 100;
/** Matching messages kept as search cursors (the older ones, so a full page follows each). */
const SEARCH_CURSORS = 500;

const started = Date.now();
// Checkpoint only at close: one export instead of one per 64 MiB of journal.
const store = await openSqliteStore({ path: path.join(dir, 'svc.db'), checkpointBytes: Number.MAX_SAFE_INTEGER });

const t0 = Date.now() - total - 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const roomIds = Array.from({ length: rooms }, (_, i) => `r${i}`);
const roomOps: WriteOp[] = roomIds.map((id) => ({
  op: 'room.create',
  room: { id, name: id, members: [PUBLISHER], visibility: 'public', write_policy: 'members' },
  at: iso(t0),
  event: (room) => ({ id: newId('evt', t0), type: 'room.created', network_id: NETWORK, created_at: iso(t0), room_id: room.id }),
}));
await store.write(roomOps);

const from = { type: 'agent', id: PUBLISHER, network_id: NETWORK, fqid: fqid(NETWORK, 'agents', PUBLISHER) };
const perRoom = Math.floor(total / rooms);
const cursors: Record<string, string[]> = {};
const keep = new Map<number, number>();
for (const id of roomIds) cursors[id] = [];
// Pick which per-room positions become cursors: past the first page, spread at random.
for (let k = 0; k < CURSORS_PER_ROOM; k++) keep.set(100 + Math.floor(Math.random() * Math.max(1, perRoom - 100)), 1);

const searchCursors: string[] = [];
const searchTotal = Math.floor(total / SEARCH_EVERY);
let written = 0;
while (written < total) {
  const ops: WriteOp[] = [];
  for (let j = 0; j < BATCH && written < total; j++, written++) {
    const room = roomIds[written % rooms]!;
    const at = t0 + written;
    const message: Message = {
      id: newId('msg', at),
      network_id: NETWORK,
      target: { kind: 'room', room_id: room },
      from,
      parts: [
        {
          kind: 'text',
          text: `history message ${written}: the quick brown fox jumps over the lazy dog${written % SEARCH_EVERY === 0 ? ` near ${SEARCH_WORD}` : ''}`,
        },
      ],
      mentions: [],
      created_at: iso(at),
    };
    const event: ServiceEvent = { id: newId('evt', at), type: 'message.created', network_id: NETWORK, created_at: iso(at), message };
    ops.push({ op: 'message.insert', record: { message, conv: `room:${room}`, event_id: event.id }, event, artifacts: [] });
    if (keep.has(Math.floor(written / rooms))) cursors[room]!.push(message.id);
    // Every matching message past the first 20 could be a cursor; keep an even spread of them.
    const hit = written / SEARCH_EVERY;
    if (written % SEARCH_EVERY === 0 && hit >= 20 && hit % Math.max(1, Math.floor(searchTotal / SEARCH_CURSORS)) === 0)
      searchCursors.push(message.id);
  }
  await store.write(ops);
  if (written % 100_000 < BATCH) process.stderr.write(`loader: ${written} messages, ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
const closing = Date.now();
await store.close();
const file = path.join(dir, 'cursors.json');
writeFileSync(file, JSON.stringify(cursors));
const searchFile = path.join(dir, 'search-cursors.json');
writeFileSync(searchFile, JSON.stringify(searchCursors));
process.stdout.write(
  `${JSON.stringify({
    seconds: (Date.now() - started) / 1000,
    close_seconds: (Date.now() - closing) / 1000,
    messages: written,
    db_bytes: statSync(path.join(dir, 'svc.db')).size,
    cursors_file: file,
    search_cursors_file: searchFile,
  })}\n`,
);
