// The pump from a store's event feed to the in-process broker: batches prepared, then published in
// sequence order, whoever wrote them; a failing batch does not stop the next.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Broker } from '../../src/events/broker.js';
import { FeedPump } from '../../src/events/pump.js';
import { MemoryStore } from '../../src/store/memory/index.js';
import { appendOp, waitFor } from '../helpers/store-fixtures.js';

const test = suite('feed pump');

test('publishes every stored event once in order, each batch after its preparers finished', async () => {
  const store = new MemoryStore();
  await store.write([appendOp()]);
  const broker = new Broker();
  const seen: number[] = [];
  const prepared = new Set<number>();
  broker.subscribe((e) => {
    assert.ok(prepared.has(e.seq), `event ${e.seq} published before it was prepared`);
    seen.push(e.seq);
  });
  const slow = async (events: readonly { seq: number }[]) => {
    await new Promise((r) => setTimeout(r, 5));
    for (const e of events) prepared.add(e.seq);
  };
  const pump = new FeedPump(store.feed, broker, [slow], (err) => assert.unreachable(err.message));
  pump.start();
  await Promise.all(Array.from({ length: 20 }, () => store.write([appendOp(), appendOp()])));
  await pump.idle();
  await waitFor(() => seen.length === 40, 'every event');
  // Events stored before the pump started are not its to publish.
  assert.equal(
    seen,
    Array.from({ length: 40 }, (_, i) => i + 2),
  );
  pump.close();
});

test('a batch whose preparation or publication fails is reported and the next one still goes', async () => {
  const store = new MemoryStore();
  const broker = new Broker();
  const errors: string[] = [];
  const seen: number[] = [];
  let first = true;
  broker.subscribe((e) => {
    if (first) {
      first = false;
      throw new Error('subscriber failed');
    }
    seen.push(e.seq);
  });
  const pump = new FeedPump(store.feed, broker, [() => Promise.reject(new Error('no audience'))], (err) => errors.push(err.message));
  pump.start();
  await store.write([appendOp()]);
  await store.write([appendOp()]);
  await pump.idle();
  assert.equal(seen, [2]);
  assert.equal(errors, ['no audience', 'subscriber failed', 'no audience']);
  pump.close();
});

test.run();
