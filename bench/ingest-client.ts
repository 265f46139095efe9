// A closed-loop ingest from a child process (scenario 5's rounds on the big store, and the
// retention row's): `clients` connections, each sending svc's ingest message and the next once
// answered, for `seconds`. Its parent (bench/lib/yielding-ingest.ts) starts it under `nice`, so
// that on a host with few cores the load yields the CPU to the server it measures: in the bench
// process it ran at the server's priority, and svc's main thread waited for a core it held.
// Answers the parent over IPC with what it measured: {type: 'done', rate, ok, errors, firstError?, latencies}.
//
//   node --import tsx bench/ingest-client.ts PORT CLIENTS SECONDS

import { closedLoop } from './lib/http.js';
import { svcIngestRequest } from './lib/svc.js';

export interface IngestDone {
  type: 'done';
  rate: number;
  ok: number;
  errors: number;
  firstError?: string;
  /** Send to answer of each accepted request (ms). */
  latencies: number[];
}

const [port, clients, seconds] = process.argv.slice(2).map(Number);
const req = svcIngestRequest();
const r = await closedLoop(port!, clients!, seconds!, () => req);
const done: IngestDone = {
  type: 'done',
  rate: r.rate,
  ok: r.ok,
  errors: r.errors,
  ...(r.firstError !== undefined ? { firstError: r.firstError } : {}),
  latencies: Array.from(r.latency.values()),
};
process.send?.(done, () => process.exit(0));
