// Start-up and shutdown of svc serve on a copy of a big store (bench/loader.ts output), with an
// optional CPU profile of the start: where the seconds before the first request go.
//
//   node --import tsx bench/tools/startup.ts STORE_DIR [--profile]

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rssMb, stopAll } from '../lib/procs.js';
import { nowMs } from '../lib/stats.js';
import { PUBLISHER, startSvc } from '../lib/svc.js';

const src = process.argv[2];
if (!src) throw new Error('usage: startup.ts STORE_DIR [--profile]');
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-startup-'));
copyFileSync(path.join(src, 'svc.db'), path.join(dir, 'svc.db'));
const prof = path.join(dir, 'prof');
mkdirSync(prof);
const profile = process.argv.includes('--profile');
const svc = await startSvc({
  dir,
  rooms: [{ id: 'ingest', members: [PUBLISHER] }],
  ...(profile ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${prof}`] } : {}),
});
console.log(`start-up ${(svc.startupMs / 1000).toFixed(2)} s, resident ${rssMb(svc.pid)?.toFixed(0)} MB`);
const t0 = nowMs();
await svc.stop();
console.log(`shutdown ${((nowMs() - t0) / 1000).toFixed(2)} s`);
await stopAll();
if (profile) console.log(`profile: ${path.join(prof, readdirSync(prof)[0] ?? '(none)')}`);
else rmSync(dir, { recursive: true, force: true });
