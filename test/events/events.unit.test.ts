import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Broker } from '../../src/events/broker.js';
import { ReplayBuffer } from '../../src/events/replay-buffer.js';
import { convKeyOf, type StoredEvent } from '../../src/store/types.js';

const ev = (seq: number): StoredEvent => ({
  seq,
  event: { id: `evt_${seq}`, type: 'room.created', network_id: 'n', created_at: '2026-01-01T00:00:00.000Z' },
});
const turn = () => new Promise((r) => setImmediate(r));

const b = suite('the broker');

b('calls plain subscribers synchronously, in publish order', () => {
  const broker = new Broker();
  const got: number[] = [];
  const off = broker.subscribe((e) => got.push(e.seq));
  broker.publish([ev(1), ev(2)]);
  assert.equal(got, [1, 2]);
  off();
  broker.publish([ev(3)]);
  assert.equal(got, [1, 2]);
});

b('hands a queued subscriber everything of one turn as one batch', async () => {
  const broker = new Broker();
  const batches: number[][] = [];
  broker.open({ max: 10, surface: 't', deliver: (batch) => batches.push(batch.map((e) => e.seq)), dropped: () => assert.unreachable() });
  broker.publish([ev(1)]);
  broker.publish([ev(2), ev(3)]);
  assert.equal(batches, []);
  await turn();
  assert.equal(batches, [[1, 2, 3]]);
});

b("shares a published batch among subscribers without letting one's later events into another's batch", async () => {
  const broker = new Broker();
  const batches: StoredEvent[][] = [];
  const both = { max: 10, surface: 't', dropped: () => assert.unreachable() };
  broker.open({ ...both, deliver: (batch) => batches.push([...batch]) });
  const paused = broker.open({ ...both, deliver: (batch) => batches.push([...batch]) });
  const published = [ev(1)];
  broker.publish(published);
  paused.pause();
  broker.publish([ev(2)]);
  assert.equal(
    published.map((e) => e.seq),
    [1],
    'the published array is never written',
  );
  await turn();
  paused.resume();
  await turn();
  assert.equal(
    batches.map((b) => b.map((e) => e.seq)),
    [
      [1, 2],
      [1, 2],
    ],
  );
  broker.publish(published);
  await turn();
  assert.equal(
    batches.slice(2).map((b) => b.map((e) => e.seq)),
    [[1], [1]],
    'and a queue handed over starts empty',
  );
});

b('drops a paused subscriber that falls behind, counts it, and keeps serving the others', async () => {
  const broker = new Broker();
  const drops: string[] = [];
  broker.observeDrops((surface) => drops.push(surface));
  let dropped = 0;
  const slow = broker.open({ max: 2, surface: 'sse', deliver: () => assert.unreachable('paused'), dropped: () => dropped++ });
  const fast: number[] = [];
  broker.open({ max: 2, surface: 'sse', deliver: (batch) => fast.push(...batch.map((e) => e.seq)), dropped: () => assert.unreachable() });
  slow.pause();
  broker.publish([ev(1), ev(2)]);
  assert.is(dropped, 0);
  broker.publish([ev(3)]);
  assert.is(dropped, 1);
  assert.ok(slow.closed);
  assert.equal(drops, ['sse']);
  assert.is(broker.drops, 1);
  await turn();
  assert.equal(fast, [1, 2, 3]);
  broker.publish([ev(4)]);
  assert.is(dropped, 1, 'a dropped subscriber is gone');
});

b('never drops a subscriber that is not paused, whatever the burst', async () => {
  const broker = new Broker();
  const got: number[] = [];
  broker.open({ max: 1, surface: 't', deliver: (batch) => got.push(...batch.map((e) => e.seq)), dropped: () => assert.unreachable() });
  broker.publish([ev(1), ev(2), ev(3)]);
  await turn();
  assert.equal(got, [1, 2, 3]);
});

b('also bounds a paused subscriber by bytes', () => {
  const broker = new Broker();
  let dropped = false;
  const sub = broker.open({ max: 100, maxBytes: 10, sizeOf: () => 4, surface: 't', deliver: () => {}, dropped: () => (dropped = true) });
  sub.pause();
  broker.publish([ev(1), ev(2)]);
  assert.not.ok(dropped);
  broker.publish([ev(3)]);
  assert.ok(dropped);
});

b('delivers what waited once resumed, and nothing after close', async () => {
  const broker = new Broker();
  const got: number[] = [];
  const sub = broker.open({ max: 10, surface: 't', deliver: (batch) => got.push(...batch.map((e) => e.seq)), dropped: () => {} });
  sub.pause();
  broker.publish([ev(1), ev(2)]);
  await turn();
  assert.equal(got, []);
  assert.is(sub.pending, 2);
  sub.resume();
  await turn();
  assert.equal(got, [1, 2]);
  sub.close();
  broker.publish([ev(3)]);
  await turn();
  assert.equal(got, [1, 2]);
  assert.is(broker.size, 0);
});

const typed = (seq: number, type: StoredEvent['event']['type']): StoredEvent => ({ seq, event: { ...ev(seq).event, type } });

b('never queues the types a subscriber ignores, and hands it nothing when a batch has only those', async () => {
  const broker = new Broker();
  const ignores = new Set(['agent.connected']);
  const attached: number[][] = [];
  const other: number[][] = [];
  broker.open({ max: 10, surface: 'attach', ignores, deliver: (batch) => attached.push(batch.map((e) => e.seq)), dropped: () => {} });
  broker.open({ max: 10, surface: 'sse', deliver: (batch) => other.push(batch.map((e) => e.seq)), dropped: () => {} });
  broker.publish([typed(1, 'agent.connected'), typed(2, 'message.created'), typed(3, 'agent.connected')]);
  broker.publish([typed(4, 'agent.connected')]);
  await turn();
  assert.equal(attached, [[2]]);
  assert.equal(other, [[1, 2, 3, 4]]);
});

b('serves every other subscriber exactly once while some leave in the middle of a publish or a hand-over', async () => {
  const broker = new Broker();
  const got = new Map<number, number[]>();
  const subs = Array.from({ length: 6 }, (_, k) => {
    got.set(k, []);
    return broker.open({
      max: 1,
      surface: 't',
      deliver: (batch) => {
        got.get(k)!.push(...batch.map((e) => e.seq));
        // Subscriber 4's hand-over lets go of subscriber 1 (before or after its own: the walk's order is not given).
        if (k === 4) subs[1]!.close();
      },
      dropped: () => {},
    });
  });
  // Paused and one event from falling behind: the next publish drops them in its walk.
  subs[0]!.pause();
  subs[3]!.pause();
  broker.publish([ev(1)]);
  broker.publish([ev(2)]);
  assert.ok(subs[0]!.closed && subs[3]!.closed);
  await turn();
  const one = got.get(1)!.join();
  assert.ok(one === '' || one === '1,2', `subscriber 1 got ${one}`);
  assert.equal([...got.values()], [[], got.get(1), [1, 2], [], [1, 2], [1, 2]]);
  broker.publish([ev(3)]);
  await turn();
  assert.equal([...got.values()], [[], got.get(1), [1, 2, 3], [], [1, 2, 3], [1, 2, 3]]);
  assert.is(got.get(1)!.join(), one, 'nothing after it was let go');
  assert.is(broker.size, 3);
});

b('tells whether any open subscriber may receive a type, as subscribers open and close', () => {
  const broker = new Broker();
  const ignores = new Set(['agent.connected']);
  assert.is(broker.wants('message.created'), false);
  const a = broker.open({ max: 10, surface: 'attach', ignores, deliver: () => {}, dropped: () => {} });
  const b2 = broker.open({ max: 10, surface: 'attach', ignores, deliver: () => {}, dropped: () => {} });
  assert.is(broker.wants('message.created'), true);
  assert.is(broker.wants('agent.connected'), false);
  const s = broker.open({ max: 10, surface: 'sse', deliver: () => {}, dropped: () => {} });
  assert.is(broker.wants('agent.connected'), true);
  s.close();
  s.close();
  assert.is(broker.wants('agent.connected'), false);
  a.close();
  assert.is(broker.wants('message.created'), true);
  b2.close();
  assert.is(broker.wants('message.created'), false);
});

b.run();

const r = suite('the replay buffer');

r('returns the events after a buffered id, oldest first', () => {
  const buf = new ReplayBuffer(5);
  for (let i = 1; i <= 4; i++) buf.push(ev(i));
  assert.equal(
    buf.after('evt_2')!.map((e) => e.seq),
    [3, 4],
  );
  assert.equal(buf.after('evt_4'), []);
  assert.is(buf.after('evt_9'), undefined);
});

r('forgets the oldest events beyond its capacity', () => {
  const buf = new ReplayBuffer(3);
  for (let i = 1; i <= 7; i++) buf.push(ev(i));
  assert.is(buf.size, 3);
  assert.equal(
    buf.all().map((e) => e.seq),
    [5, 6, 7],
  );
  assert.is(buf.after('evt_4'), undefined);
  assert.equal(
    buf.after('evt_5')!.map((e) => e.seq),
    [6, 7],
  );
});

r("keeps the newest of an event that replaces its conversation's last, in the place of the one it replaced", () => {
  const receipts = (seq: number, room: string): StoredEvent => ({
    seq,
    event: {
      ...ev(seq).event,
      type: 'message.receipts',
      receipts: { target: { kind: 'room', room_id: room }, marks: [] },
    } as StoredEvent['event'],
  });
  // As the hub keys them from the receipts feature's declaration (LiveEvent.replacesItsLast).
  const buf = new ReplayBuffer(10, (e) => (e.type === 'message.receipts' ? `r ${convKeyOf(e.receipts!.target)}` : undefined));
  buf.push(ev(1));
  buf.push(receipts(2, 'general'));
  buf.push(receipts(3, 'ops'));
  buf.push(ev(4));
  buf.push(receipts(5, 'general'));
  assert.equal(
    buf.all().map((e) => e.seq),
    [1, 3, 4, 5],
    "general's first receipts event is gone; ops' stays",
  );
  assert.equal(
    buf.after('evt_2')!.map((e) => e.seq),
    [3, 4, 5],
    'a stream that last saw the replaced one resumes after it',
  );
  assert.is(buf.at(buf.start + 1), null, 'a replay passes over its place');
  assert.is(buf.at(buf.start)!.seq, 1);
  buf.resize(3);
  assert.equal(
    buf.all().map((e) => e.seq),
    [3, 4, 5],
  );
});

r('keeps the newest events when resized, and nothing at capacity 0', () => {
  const buf = new ReplayBuffer(4);
  for (let i = 1; i <= 4; i++) buf.push(ev(i));
  buf.resize(2);
  assert.equal(
    buf.all().map((e) => e.seq),
    [3, 4],
  );
  buf.resize(6);
  buf.push(ev(5));
  assert.equal(
    buf.all().map((e) => e.seq),
    [3, 4, 5],
  );
  buf.resize(0);
  buf.push(ev(6));
  assert.equal(buf.all(), []);
  assert.is(buf.after('evt_6'), undefined);
});

r.run();
