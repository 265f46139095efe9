// svc's closed-loop ingest from a child process at a lower CPU priority (bench/ingest-client.ts):
// for the rows that judge svc's own event loop under that load (scenario 5's longest stall, the
// retention row's). Run in the bench process, the load generator had the server's priority, and on
// a 2-core host svc's main thread waited for a core it held: of the stalls over 20 ms, 5-26 ms were
// such waits (bench/tools/big-ingest.ts --pauses); with svc's main thread ahead of every other
// thread, no round stalled over 16.5 ms (2026-12-01).

import { spawn } from 'node:child_process';
import path from 'node:path';
import type { IngestDone } from '../ingest-client.js';
import { stop } from './procs.js';
import { Samples } from './stats.js';
import { ROOT } from './svc.js';
import type { IngestRun } from './targets.js';
import { tsScript } from './ts-loader.js';

/** The nice increment of the load generator: 10 weighs about a tenth of the server's share of a contended core. */
export const LOAD_NICE = 10;

/** Ingests into svc on `port` from a child process under `nice`; resolves with what it measured. */
export async function yieldingIngest(port: number, clients: number, seconds: number): Promise<IngestRun> {
  const args = [
    '-n',
    String(LOAD_NICE),
    process.execPath,
    ...tsScript(path.join(ROOT, 'bench/ingest-client.ts')),
    String(port),
    String(clients),
    String(seconds),
  ];
  const child = spawn('nice', args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  try {
    const done = await new Promise<IngestDone>((resolve, reject) => {
      child.once('message', (m: IngestDone) => resolve(m));
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the ingest client exited with ${code}${err ? `:\n${err}` : ''}`)));
    });
    const latency = new Samples();
    latency.merge(done.latencies);
    return {
      rate: done.rate,
      ok: done.ok,
      errors: done.errors,
      ...(done.firstError !== undefined ? { firstError: done.firstError } : {}),
      latency,
    };
  } finally {
    await stop(child, 5000);
  }
}
