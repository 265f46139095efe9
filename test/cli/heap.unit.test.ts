import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HEAP_GROWING_PERCENT, v8Flags } from '../../src/cli/heap.js';

const GROWTH = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;

test('svc sets the old generation growth limit unless node was started with one', () => {
  assert.equal(v8Flags([], 8), [GROWTH]);
  assert.equal(v8Flags(['--enable-source-maps'], 8), [GROWTH]);
  assert.equal(v8Flags(['--heap-growing-percent=100'], 8), []);
  assert.equal(v8Flags(['--heap_growing_percent', '20'], 8), [], "V8's spelling with underscores");
  assert.equal(v8Flags(['--heap-growing-percentage=5'], 8), [GROWTH], 'another flag');
});

test('on two cores or fewer scavenges run on the main thread, unless node was told otherwise', () => {
  assert.equal(v8Flags([], 2), [GROWTH, '--no-parallel-scavenge']);
  assert.equal(v8Flags([], 1), [GROWTH, '--no-parallel-scavenge']);
  assert.equal(v8Flags([], 4), [GROWTH], 'four cores keep parallel scavenges');
  assert.equal(v8Flags(['--parallel-scavenge'], 2), [GROWTH], "the operator's choice");
  assert.equal(v8Flags(['--no_parallel_scavenge'], 2), [GROWTH]);
  assert.equal(v8Flags(['--single-threaded-gc'], 2), [GROWTH]);
});

test.run();
