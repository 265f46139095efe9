// WriteHealth (src/store/write-health.ts): one log line per minute for refused writes, readiness
// off while refusing, back on after a write or a paced probe succeeds. Time is injected.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StoreError } from '../../src/store/types.js';
import { WriteHealth } from '../../src/store/write-health.js';

function harness(probeOk: () => boolean) {
  let now = 0;
  const lines: string[] = [];
  let probes = 0;
  const h = new WriteHealth({
    clock: () => now,
    log: (level, msg, fields) => lines.push(`${level} ${msg} ${JSON.stringify(fields ?? {})}`),
    probe: () => {
      probes++;
      if (!probeOk()) throw new Error('ENOSPC');
    },
  });
  return { h, lines, advance: (ms: number) => (now += ms), probes: () => probes };
}

const full = () => new StoreError('unavailable', 'the store cannot persist writes: ENOSPC');

test('a thousand refused writes in a minute log one line, the next minute one more with the count', () => {
  const { h, lines, advance } = harness(() => false);
  for (let i = 0; i < 1000; i++) h.failed(full());
  assert.is(lines.length, 1);
  assert.match(lines[0]!, /^warn store refuses writes.*"refused_writes":1\}/);
  advance(60_000);
  h.failed(full());
  assert.is(lines.length, 2);
  assert.match(lines[1]!, /"refused_writes":1000\}/);
});

test('conflicts and other errors are not a refusing store', () => {
  const { h, lines } = harness(() => true);
  h.failed(new StoreError('conflict', 'dup'));
  h.failed(new Error('boom'));
  assert.ok(h.accepting);
  assert.ok(h.check());
  assert.is(lines.length, 0);
});

test('readiness is off while refusing, probes at most once a second, and returns when a probe passes', () => {
  let ok = false;
  const { h, lines, advance, probes } = harness(() => ok);
  h.failed(full());
  assert.not.ok(h.check());
  assert.not.ok(h.check());
  assert.is(probes(), 1);
  ok = true;
  assert.not.ok(h.check(), 'the next probe waits its turn');
  advance(1000);
  assert.ok(h.check());
  assert.ok(h.accepting);
  assert.match(lines.at(-1)!, /^info store accepts writes again \{"refused_writes":1\}/);
});

test('a successful write ends the refusal at once', () => {
  const { h } = harness(() => false);
  h.failed(full());
  h.succeeded();
  assert.ok(h.accepting);
  assert.ok(h.check());
});

test.run();
