// A store loaded by bench/loader.ts for the tools that run on copies of one (big-ingest,
// redaction-scrub): loaded into `dir` unless a `svc.db` is there already (a kept one, reused).

import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT } from './svc.js';

export function ensureLoaded(dir: string, messages: number, rooms = 100): void {
  if (existsSync(path.join(dir, 'svc.db'))) return;
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`loading ${messages} messages into ${dir}\n`);
  execFileSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/loader.ts'), '--dir', dir, '--messages', String(messages), '--rooms', String(rooms)],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
  );
}
