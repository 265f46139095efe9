// Preloaded into a server by bench/tools/attach-mem.ts (`node --import`): on SIGUSR2 it appends the
// process's memory and V8's heap spaces, as one JSON line, to the file named by SVC_HEAP_PROBE_FILE.
// Reading them in-process costs nothing between two readings, unlike an inspector session. With
// SVC_HEAP_PROBE_GC=1 a second line follows, taken after a full collection, so
// live memory and collectable garbage can be told apart (a diagnosis only: it changes the process).
// With SVC_HEAP_PROBE_SNAPSHOT=FILE the third signal (attach-mem's reading after the broadcasts) also
// writes a heap snapshot there, after the collection: what holds the memory that stays.

import { appendFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';

const file = process.env.SVC_HEAP_PROBE_FILE;
const withGc = process.env.SVC_HEAP_PROBE_GC === '1';
if (withGc) v8.setFlagsFromString('--expose-gc');
const gc = withGc ? vm.runInNewContext('gc') : undefined;

function reading() {
  const spaces = Object.fromEntries(
    v8.getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]),
  );
  return { pid: process.pid, mem: process.memoryUsage(), spaces };
}

const snapshot = process.env.SVC_HEAP_PROBE_SNAPSHOT;
let signals = 0;

if (file) {
  process.on('SIGUSR2', () => {
    const lines = [reading()];
    if (gc) {
      gc();
      lines.push(reading());
    }
    if (snapshot && ++signals === 3) v8.writeHeapSnapshot(snapshot);
    appendFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  });
}
