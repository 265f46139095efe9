// History pages of a store opened on demand read their rows' leaf pages ahead, in runs
// (engine/prefetch.ts): fewer system calls than a page at a time, the same page of messages.

import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message, ServiceEvent } from '../../../src/protocol/types.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/index.js';
import type { WriteOp } from '../../../src/store/types.js';

const NET = 'net1';
const AT = '2024-05-01T00:00:00.000Z';

function send(id: string, room: string): WriteOp {
  const message: Message = {
    id,
    network_id: NET,
    target: { kind: 'room', room_id: room },
    from: { type: 'agent', id: 'a1', network_id: NET, fqid: `svc://${NET}/agents/a1` },
    parts: [{ kind: 'text', text: `${id}: ${'a message of some length, '.repeat(8)}` }],
    mentions: [],
    created_at: AT,
  };
  const event: ServiceEvent = { id: `ev-${id}`, type: 'message.created', network_id: NET, created_at: AT, message };
  return { op: 'message.insert', record: { message, conv: `room:${room}`, event_id: event.id }, event, artifacts: [] };
}

/** The store's read-ahead, switched off (as on a store whose pages are all in memory). */
function withoutPrefetch(s: SqliteStore): void {
  (s as unknown as { reads: { prefetch: unknown } }).reads.prefetch = undefined;
}

test('a history page read on demand takes its rows in runs, and reads the same messages', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-prefetch-'));
  try {
    const file = join(dir, 'svc.db');
    const s = await openSqliteStore({ path: file });
    // Each room's messages in bursts: a room's rows share leaf pages, page after page.
    for (const room of ['r1', 'r2', 'r1', 'r2']) {
      const ops = Array.from({ length: 400 }, (_, i) => send(`${room}-${Math.random().toString(36).slice(2)}-${i}`, room));
      await s.write(ops);
    }
    const cursor = (await s.listMessages('room:r1', { limit: 500 })).items[250]!.id;
    await s.close();
    copyFileSync(file, join(dir, 'copy.db'));

    const ahead = await openSqliteStore({ path: file });
    const plain = await openSqliteStore({ path: join(dir, 'copy.db') });
    withoutPrefetch(plain);
    assert.ok(ahead.engine?.on_demand_reads, 'the store reads pages on demand');
    const calls = (st: SqliteStore) => st.pages!.baseReads;
    const [a0, p0] = [calls(ahead), calls(plain)];
    const a = await ahead.listMessages('room:r1', { limit: 100, before: cursor });
    const p = await plain.listMessages('room:r1', { limit: 100, before: cursor });
    assert.equal(
      a.items.map((m) => m.id),
      p.items.map((m) => m.id),
    );
    assert.is(a.items.length, 100);
    const [aheadCalls, plainCalls] = [calls(ahead) - a0, calls(plain) - p0];
    assert.ok(plainCalls >= 10, `a page at a time: ${plainCalls} reads`);
    assert.ok(aheadCalls * 2 <= plainCalls, `read ahead: ${aheadCalls} reads against ${plainCalls}`);
    // Nothing read ahead is kept after the page.
    assert.is(ahead.pages!.prefetched.size, 0);
    // Rows written since the open change the tree's newest pages (read from memory by the walk);
    // older pages still read ahead, and every page reads right.
    const more = Array.from({ length: 300 }, (_, i) => send(`new-${i}`, i % 2 ? 'r1' : 'r2'));
    await ahead.write(more);
    await plain.write(more);
    for (const q of [{ limit: 100 }, { limit: 100, before: cursor }, { limit: 50, after: cursor }]) {
      assert.equal(
        (await ahead.listMessages('room:r1', q)).items.map((m) => m.id),
        (await plain.listMessages('room:r1', q)).items.map((m) => m.id),
      );
    }
    await ahead.close();
    await plain.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
