// An export taken while writers send is one consistent state (#40 part 5), on sqlite (a
// checkpointed image read in a worker thread) and on PostgreSQL (one REPEATABLE READ transaction):
// each writer's messages in it are a prefix of what the writer had acknowledged, holding every
// message acknowledged before the export was asked for and none acknowledged after its first bytes
// arrived; each message comes with its event, the thread's count and last time match its
// messages, and `svc import` takes the file whole. Writes go on while the export runs.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { freshSchema, type PgSchema } from '../helpers/pg.js';
import { startPgServer } from '../helpers/pg-server.js';
import { roomMessage, startServer, tempDir, testConfig, TOKENS, writeConfig, type HttpServer, type Json } from '../helpers/server.js';
import { ADMIN } from './fixture.js';

const ROOMS = [{ id: 'general', members: ['alpha'] }];
const WRITERS = 4;
/** Small, so that checkpoints run while the writers send (the export waits for one, then holds them off). */
const SQLITE = { backend: 'sqlite', path: '.svc/svc.db', checkpoint_bytes: 16_384 };

const t = suite('an export while writers send is one consistent snapshot');
const schemas: PgSchema[] = [];
t.after(async () => {
  for (const s of schemas) await s.drop();
});

/** Writers sending one message at a time (even ones into room general, odd ones into thread t1), keeping acknowledged ids. */
function startWriters(s: HttpServer): { acked: string[][]; stop: () => Promise<void> } {
  const acked: string[][] = Array.from({ length: WRITERS }, () => []);
  let running = true;
  const loops = acked.map(async (mine, w) => {
    for (let i = 0; running; i++) {
      const body =
        w % 2 === 0
          ? roomMessage('general', 'alpha', `writer ${w} message ${i}`)
          : {
              target: { kind: 'thread', room_id: 'general', thread_id: 't1' },
              from: { type: 'agent', id: 'alpha' },
              parts: [{ kind: 'text', text: `writer ${w} message ${i}` }],
            };
      const r = await s.post('/v1/messages', body, TOKENS.alphaOnly.value);
      assert.is(r.status, 200, r.text);
      mine.push(r.body.message_id as string);
    }
  });
  return {
    acked,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

const total = (acked: string[][]) => acked.reduce((n, a) => n + a.length, 0);
const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
};

async function exportWhileWriting(s: HttpServer): Promise<void> {
  const writers = startWriters(s);
  const { acked } = writers;
  await until(() => acked.every((a) => a.length >= 40));
  const atAsk = acked.map((a) => a.length);
  const res = await fetch(`${s.url}/v1/export`, { headers: { authorization: `Bearer ${ADMIN}` } });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
  const reader = res.body!.getReader();
  const chunks: Uint8Array[] = [];
  const first = await reader.read();
  assert.not.ok(first.done);
  chunks.push(first.value!);
  // The snapshot was taken before these bytes left: what is acknowledged from now on is not in it.
  const atFirstBytes = acked.map((a) => a.length);
  await until(() => total(acked) >= atFirstBytes.reduce((n, k) => n + k, 0) + 30);
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    chunks.push(r.value);
  }
  await writers.stop();
  const text = Buffer.concat(chunks).toString('utf8');
  const lines = text.slice(0, -1).split('\n');
  const objs = lines.map((l) => JSON.parse(l) as Json);
  assert.is(objs[0].type, 'svc-export');
  assert.is(objs[objs.length - 1].type, 'end');

  const messages = objs.filter((o) => o.type === 'message');
  const ids = new Set(messages.map((m) => m.message.id as string));
  acked.forEach((mine, w) => {
    const inExport = mine.filter((id) => ids.has(id));
    assert.equal(inExport, mine.slice(0, inExport.length), `writer ${w}: a prefix of its acknowledged messages`);
    assert.ok(
      inExport.length >= atAsk[w]!,
      `writer ${w}: ${inExport.length} in the export, ${atAsk[w]} acknowledged before it was asked for`,
    );
    // A writer has one send in flight at most: stored before the snapshot, its answer may reach
    // this process after the export's first bytes do.
    assert.ok(
      inExport.length <= atFirstBytes[w]! + 1,
      `writer ${w}: ${inExport.length} in the export, ${atFirstBytes[w]} acknowledged at its first bytes`,
    );
  });
  assert.is(objs[0].messages, messages.length);

  // Every message with its event, events in sequence order.
  const created = new Set<string>();
  let seq = 0;
  for (const e of objs.filter((o) => o.type === 'event')) {
    assert.ok(e.seq > seq, `seq ${e.seq} after ${seq}`);
    seq = e.seq;
    if (e.event.type === 'message.created') created.add(e.message_id ?? e.event.message.id);
  }
  for (const id of ids) assert.ok(created.has(id), `message ${id} has its message.created event`);
  // The thread's count and last time are those of its messages in the export.
  const inThread = messages.filter((m) => m.message.target.kind === 'thread');
  const thread = objs.find((o) => o.type === 'thread' && o.thread.id === 't1').thread;
  assert.is(thread.message_count, inThread.length);
  assert.is(
    thread.last_message_at,
    inThread
      .map((m) => m.message.created_at as string)
      .sort()
      .pop(),
  );

  // A reader that leaves half way costs the server nothing but that export.
  const left = await fetch(`${s.url}/v1/export`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const lr = left.body!.getReader();
  assert.not.ok((await lr.read()).done);
  await lr.cancel();
  const still = await s.get('/v1/rooms/general', ADMIN);
  assert.is(still.status, 200, still.text);

  // And it is a whole file an import takes.
  const dir = tempDir();
  const file = path.join(dir, 'export.jsonl');
  writeFileSync(file, text);
  const config = writeConfig(dir, testConfig({ rooms: ROOMS }));
  const r = await cli(['import', file, '--config', config]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`: 1 rooms, \\d+ agents, ${messages.length} messages, 1 threads`));
}

t('sqlite: a checkpointed image read off the main thread', async () => {
  const s = await startServer({ config: { store: SQLITE, rooms: ROOMS } });
  try {
    await exportWhileWriting(s);
  } finally {
    await s.dispose();
  }
});

t('PostgreSQL: one REPEATABLE READ READ ONLY transaction', async () => {
  const schema = await freshSchema();
  schemas.push(schema);
  const s = await startPgServer(schema, { rooms: ROOMS });
  try {
    await exportWhileWriting(s);
  } finally {
    await s.dispose();
  }
});

t.run();
