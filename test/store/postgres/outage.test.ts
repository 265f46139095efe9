// The database restarting under load: writes are refused with 503 while it is down and /readyz
// fails; both recover by themselves, nothing acknowledged is lost, a retry stores once, and live
// clients get what is sent after the database is back.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKENS, eventually, type Json } from '../../helpers/server.js';
import { SseClient, attachAs } from '../../helpers/live.js';
import { startOwnCluster } from '../../helpers/pg.js';
import { startPgServer } from '../../helpers/pg-server.js';

const ADMIN = TOKENS.admin.value;
const human = (text: string, id: string): Json => ({
  id,
  target: { kind: 'room', room_id: 'general' },
  from: { type: 'human', id: 'op' },
  parts: [{ kind: 'text', text }],
});

const test = suite('a postgres store whose database restarts under load');

test('writes answer 503 and /readyz fails while the database is down; both recover and nothing acknowledged is lost', async () => {
  // Stopping the database needs a cluster of our own (also when SVC_TEST_PG_URL is set).
  const cluster = await startOwnCluster();
  const s = await startPgServer({ url: cluster.url, schema: 'outage' }, { rooms: [{ id: 'general', members: ['alpha'] }] });
  try {
    const sse = await SseClient.open(s, { token: ADMIN });
    const { c } = await attachAs(s, { network_id: 'testnet', agent: { id: 'alpha' } }, { token: TOKENS.alphaOnly.value });
    const acked: string[] = [];
    const refused: string[] = [];
    const codes = new Set<string>();
    let n = 0;
    let stop = false;
    const sender = async () => {
      while (!stop) {
        const id = `load-${n++}`;
        const r = await s.post('/v1/messages', human(id, id), ADMIN);
        if (r.status === 200) acked.push(id);
        else {
          refused.push(id);
          codes.add(`${r.status} ${r.body?.code}`);
          await new Promise((res) => setTimeout(res, 50));
        }
      }
    };
    const senders = Array.from({ length: 4 }, sender);
    await eventually(() => acked.length >= 20, 15_000, 'sends before the outage');

    cluster.stop();
    await eventually(() => refused.length >= 5, 15_000, 'refused sends during the outage');
    assert.is((await s.get('/readyz')).status, 503);
    assert.equal([...codes], ['503 service_unavailable']);

    cluster.start();
    await eventually(async () => (await s.get('/readyz')).status === 200, 30_000, '/readyz to recover');
    const before = acked.length;
    await eventually(() => acked.length >= before + 20, 30_000, 'sends after the outage');
    stop = true;
    await Promise.all(senders);

    // A refused send may be retried safely: it is stored exactly once.
    for (const id of refused) assert.is((await s.post('/v1/messages', human(id, id), ADMIN)).status, 200);
    const r = await s.get('/v1/rooms/general/messages?limit=500', ADMIN);
    const page = r.body.messages as Json[];
    const all: string[] = page.map((m) => m.id);
    let older = r.body.page?.next_before as string | undefined;
    while (older) {
      const next = await s.get(`/v1/rooms/general/messages?limit=500&before=${older}`, ADMIN);
      all.unshift(...(next.body.messages as Json[]).map((m) => m.id));
      older = next.body.page?.next_before;
    }
    const stored = new Set(all);
    assert.is(stored.size, all.length, 'no message is stored twice');
    assert.equal(
      acked.filter((id) => !stored.has(id)),
      [],
      'every acknowledged send is stored',
    );
    assert.equal(
      refused.filter((id) => !stored.has(id)),
      [],
    );

    // Live clients kept their connections and get what follows, in order, once.
    const last = `after-${Date.now()}`;
    assert.is((await s.post('/v1/messages', human(last, last), ADMIN)).status, 200);
    await sse.message(last, 15_000);
    await c.message(last, 15_000);
    const ids = sse.all.filter((f) => f.id !== undefined).map((f) => f.id);
    assert.is(new Set(ids).size, ids.length, 'no event twice on the stream');
    const seen = new Set(sse.all.filter((f) => f.event === 'message.created').map((f) => f.json.message.id as string));
    assert.equal(
      acked.filter((id) => !seen.has(id)),
      [],
      'the stream got every acknowledged message',
    );
    sse.close();
    await c.close();
  } finally {
    await s.dispose();
    cluster.destroy();
  }
});

test.run();
