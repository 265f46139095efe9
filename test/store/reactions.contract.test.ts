// The reactions concern (src/store/reactions/) on every backend, through the store as the server
// uses it: what one batch decides against its own earlier effects (the concern's overlay), what each
// backend's part applies and reads back (live and after a reopen: sqlite replays its journal through
// the part), and that a part claims only its own effects, so a backend can hand it any effect.
// test/store/reactions.test.ts holds the intent's rules one write at a time.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Effect } from '../../src/store/effects.js';
import { openStore } from '../../src/store/open.js';
import { MemoryReactions } from '../../src/store/reactions/memory.js';
import { reactionsPart } from '../../src/store/reactions/part.js';
import type { ReactionEffect } from '../../src/store/reactions/ops.js';
import { postgresReactions } from '../../src/store/reactions/postgres.js';
import { sqliteReactions } from '../../src/store/reactions/sqlite.js';
import type { Store, WriteResult } from '../../src/store/types.js';
import { BACKENDS, storePerTest } from '../helpers/store-per-test.js';
import { leftAsCrashed, codeOf, createRoom, msg, reactionChange, send } from '../helpers/store-fixtures.js';

const change = (message_id: string, emoji: string, by: string, action: 'add' | 'remove' = 'add', max = 2) =>
  reactionChange(message_id, emoji, by, action, max);

const outcomes = (r: WriteResult) => r.outcomes.map((o) => (o.op === 'reaction.change' ? `${o.status} ${o.count}` : o.op));
const stored = async (store: Store, ids: string[]) =>
  (await store.part(reactionsPart)!.list(ids)).map((r) => `${r.message_id} ${r.emoji} ${r.by}`);

for (const backend of BACKENDS) {
  const test = suite(`the reactions concern (${backend})`);
  let store: Store;
  const open = storePerTest(test, backend, 'svc-reactions-contract-', async (s) => {
    store = s;
    await store.write([createRoom('r1'), send(msg('m1')), send(msg('m2'))]);
  });

  test('later intents of a batch see what earlier ones did', async () => {
    const r = await store.write([
      change('m1', '👍', 'n:a'),
      change('m1', '👍', 'n:b'),
      change('m1', '👍', 'n:a'),
      change('m1', '🎉', 'n:a'),
      // The limit counts the batch's own new emoji: 👍 and 🎉 are two.
      change('m1', '👀', 'n:a'),
      change('m1', '👍', 'n:b', 'remove'),
      change('m2', '👀', 'n:c'),
    ]);
    assert.equal(outcomes(r), ['added 1', 'added 2', 'unchanged 2', 'added 1', 'limit 0', 'removed 1', 'added 1']);
    assert.equal(
      r.events.map((e) => e.event.room_id),
      ['👍 1', '👍 2', '🎉 1', '👍 1', '👀 1'],
    );
    assert.equal(await stored(store, ['m1', 'm2']), ['m1 👍 n:a', 'm1 🎉 n:a', 'm2 👀 n:c']);
  });

  test('a reaction added and removed in one batch is not stored', async () => {
    const r = await store.write([change('m1', '👍', 'n:a'), change('m1', '👍', 'n:a', 'remove')]);
    assert.equal(outcomes(r), ['added 1', 'removed 0']);
    assert.equal(await stored(store, ['m1']), []);
  });

  test('a stored reaction removed and added again in one batch is stored once, as the newest', async () => {
    await store.write([change('m1', '👍', 'n:a'), change('m1', '🎉', 'n:b')]);
    const r = await store.write([change('m1', '👍', 'n:a', 'remove'), change('m1', '👍', 'n:a')]);
    assert.equal(outcomes(r), ['removed 0', 'added 1']);
    assert.equal(await stored(store, ['m1']), ['m1 🎉 n:b', 'm1 👍 n:a']);
  });

  test('a refused batch writes none of its reactions', async () => {
    assert.is(await codeOf(() => store.write([change('m1', '👍', 'n:a'), change('nope', '👍', 'n:a')])), 'not_found');
    assert.equal(await stored(store, ['m1', 'nope']), []);
  });

  if (backend !== 'memory') {
    test("the backend's part applies the same effects again after a reopen", async () => {
      await store.write([change('m1', '👍', 'n:a'), change('m1', '🎉', 'n:b')]);
      await store.write([change('m1', '👍', 'n:a', 'remove'), change('m2', '👍', 'n:a')]);
      const before = await stored(store, ['m1', 'm2']);
      await store.close();
      store = await open();
      assert.equal(await stored(store, ['m1', 'm2']), before);
      assert.equal(before, ['m1 🎉 n:b', 'm2 👍 n:a']);
    });
  }

  test.run();
}

const parts = suite('the reactions part claims only its own effects');
const other: Effect = { op: 'pairing.delete', pairing_id: 'p1' };
const put: Effect = { op: 'reaction.put', reaction: { message_id: 'm1', emoji: '👍', by: 'n:a', created_at: '2026-01-01T00:00:00.000Z' } };
const del: Effect = { op: 'reaction.delete', message_id: 'm1', emoji: '👍', by: 'n:a' };

parts('owns', () => {
  assert.is(reactionsPart.owns(other), false);
  assert.ok(reactionsPart.owns(put) && reactionsPart.owns(del));
});

parts('memory', async () => {
  const m = new MemoryReactions();
  m.apply(put as ReactionEffect);
  assert.equal(
    (await m.reads.list(['m1'])).map((r) => r.emoji),
    ['👍'],
  );
  m.apply(del as ReactionEffect);
  assert.equal(await m.reads.list(['m1']), []);
});

parts('sqlite', () => {
  const ran: string[] = [];
  const run = (sql: string) => void ran.push(sql.split(' ')[0]!);
  sqliteReactions.apply(run, put as ReactionEffect);
  sqliteReactions.apply(run, del as ReactionEffect);
  assert.equal(ran, ['INSERT', 'DELETE']);
});

parts('postgres', () => {
  const values: unknown[] = [];
  const param = (v: unknown) => `$${values.push(v)}`;
  const ctes = postgresReactions.ctes([put as ReactionEffect, { op: 'reaction.delete', emoji: '👍', by: 'n:a', message_id: 'm2' }], {
    param,
    row: (p) => `(${p.map(param).join(', ')})`,
    table: (n) => `s.${n}`,
  });
  assert.equal(
    ctes.map((c) => c.split(' ').slice(0, 3).join(' ')),
    ['DELETE FROM s.reactions', 'INSERT INTO s.reactions'],
  );
  assert.is(values.length, 7);
});

parts.run();

const held = suite('a sqlite store keeps applying the parts it holds');

held('opened without the reactions part on files that hold its table, it replays their journal and keeps the reads', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-reactions-held-'));
  const opened: Store[] = [];
  try {
    const cfg = { backend: 'sqlite' as const, path: join(dir, 'svc.db'), checkpoint_bytes: 64 * 1024 * 1024 };
    const first = await openStore(cfg, undefined, [reactionsPart]);
    opened.push(first);
    await first.write([createRoom('r1'), send(msg('m1')), change('m1', '👍', 'n:a')]);
    // A second store on the same files while the first never closed (a restart after a crash),
    // for a server whose feature list no longer has reactions: the journal holds their effects.
    await leftAsCrashed(first);
    const after = await openStore(cfg, undefined, []);
    opened.push(after);
    assert.equal(await stored(after, ['m1']), ['m1 👍 n:a']);
    // A fresh store opened without the part has no reads for it (and no table).
    const fresh = await openStore({ ...cfg, path: join(dir, 'fresh', 'svc.db') }, undefined, []);
    opened.push(fresh);
    assert.is(fresh.part(reactionsPart), undefined);
    assert.is(await codeOf(() => fresh.write([createRoom('r1'), send(msg('m1')), change('m1', '👍', 'n:a')])), 'corrupt');
  } finally {
    for (const s of opened) await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

held.run();
