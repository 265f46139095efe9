// Starts the baseline server (bench/baseline.ts) as its own process.

import path from 'node:path';
import { launch, stop, tail, waitForLine, withFdLimit } from './procs.js';
import { ROOT } from './svc.js';
import { tsScript } from './ts-loader.js';

export interface BaselineServer {
  port: number;
  pid: number | undefined;
  output(): string;
  stop(): Promise<void>;
}

/** Spawns the baseline with its journal in `dir`; `manyFds` raises its open-files limit to the hard limit. */
export async function startBaseline(dir: string, o: { manyFds?: boolean } = {}): Promise<BaselineServer> {
  const argv = [...tsScript(path.join(ROOT, 'bench/baseline.ts')), '--dir', dir];
  const [cmd, args] = o.manyFds ? withFdLimit(process.execPath, argv) : [process.execPath, argv];
  const child = launch(cmd, args, { cwd: ROOT });
  const out = tail(child);
  const m = await waitForLine(child, /baseline listening on (\d+)/, 30_000, 'baseline');
  return { port: Number(m[1]), pid: child.pid, output: out, stop: () => stop(child) };
}
