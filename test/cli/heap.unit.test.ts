import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HEAP_GROWING_PERCENT, heapFlag } from '../../src/cli/heap.js';

test('svc sets the old generation growth limit unless node was started with one', () => {
  assert.is(heapFlag([]), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  assert.is(heapFlag(['--enable-source-maps']), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  assert.is(heapFlag(['--heap-growing-percent=100']), undefined);
  assert.is(heapFlag(['--heap_growing_percent', '20']), undefined, "V8's spelling with underscores");
  assert.is(heapFlag(['--heap-growing-percentage=5']), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`, 'another flag');
});

test.run();
