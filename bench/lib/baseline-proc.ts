// Starts the baseline server (bench/baseline.ts) as its own process.

import path from 'node:path';
import { launch, stop, tail, waitForLine } from './procs.js';
import { ROOT } from './svc.js';

export interface BaselineServer {
  port: number;
  pid: number | undefined;
  output(): string;
  stop(): Promise<void>;
}

/** Spawns the baseline with its journal in `dir`. */
export async function startBaseline(dir: string): Promise<BaselineServer> {
  const child = launch(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/baseline.ts'), '--dir', dir], { cwd: ROOT });
  const out = tail(child);
  const m = await waitForLine(child, /baseline listening on (\d+)/, 30_000, 'baseline');
  return { port: Number(m[1]), pid: child.pid, output: out, stop: () => stop(child) };
}
