// The event feed of a Postgres store goes on past the seqs a retention purge leaves (#40 part 4):
// events of a purged message can go before another instance's feed has read them, and that
// instance then reads a later event with nothing stored before it. Here the other instance's
// write is made in SQL, as its statement leaves the tables after such a purge (the counter past
// two events, the first of them gone), so the feed cannot have read the purged one first.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openStore } from '../../../src/store/open.js';
import { tablesOf } from '../../../src/store/postgres/tables.js';
import type { StoredEvent, Store } from '../../../src/store/types.js';
import { freshSchema, sql, type PgSchema } from '../../helpers/pg.js';
import { appendOp, event, waitFor } from '../../helpers/store-fixtures.js';

interface Ctx {
  pgs: PgSchema;
  store: Store;
}

const t = suite<Ctx>('the Postgres feed past purged events');

t.before.each(async (ctx) => {
  ctx.pgs = await freshSchema();
  ctx.store = await openStore({ backend: 'postgres', path: '', checkpoint_bytes: 0, url: ctx.pgs.url, schema: ctx.pgs.schema });
});
t.after.each(async ({ pgs, store }) => {
  await store?.close();
  await pgs?.drop();
});

t('an event stored after a purged one is delivered, and so is everything after it', async ({ pgs, store }) => {
  const got: StoredEvent[] = [];
  const sub = store.feed.subscribe(store.feed.head, (events) => got.push(...events));
  try {
    await store.write([appendOp('room.created', { room_id: 'r0' })]);
    await waitFor(() => got.length === 1, 'the first event');
    const T = tablesOf(pgs.schema);
    const later = event('room.created', { room_id: 'r2' });
    // Seq 2 (a purged message's event) is gone; seq 3 is stored.
    await sql(
      pgs.url,
      `WITH c AS (UPDATE ${T.event_counter} SET seq = seq + 2 WHERE id = 1 RETURNING seq) ` +
        `INSERT INTO ${T.events} (seq, event_id, type, message_id, body) SELECT c.seq, $1, $2, NULL, $3 FROM c`,
      [later.id, later.type, JSON.stringify(later)],
    );
    await sql(pgs.url, 'SELECT pg_notify($1, $2)', [T.channel, '3']);
    await waitFor(() => got.length === 2, 'the event after the hole', 10_000);
    assert.equal(
      got.map((e) => e.seq),
      [1, 3],
    );
    assert.is(got[1]!.event.id, later.id);
    // The feed's own writes go on being delivered.
    const r = await store.write([appendOp('room.created', { room_id: 'r4' })]);
    assert.is(r.events[0]!.seq, 4);
    await waitFor(() => got.length === 3, 'the event after it');
    assert.is(store.feed.head, 4);
  } finally {
    sub.close();
  }
});

t.run();
