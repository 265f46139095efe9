// The bench's retention round on its own (bench/scenarios/retention.ts, full sizes), on a copy of
// a store bench/loader.ts filled, and beside it the same round without the policy (`--plain`), so
// the purge's cost is read against a control in the same state and on the same host. Prints each
// round's ingest rate, longest stall and purge; with `--pauses`, each stall over 20 ms in the
// measured window with what it held (loop-stall.mjs's detail, as big-ingest.ts --pauses). `--rounds N` alternates N of each. `--profile DIR` writes each server's CPU
// profile there (read its long turns with long-turns.ts). Runs the built dist (npm run build).
//
//   node --import tsx bench/tools/retention-round.ts --store DIR [--messages 1000000] [--rooms 100] [--rounds 1] [--plain-too] [--profile DIR] [--pauses]

import { cpSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { flag, opt } from '../lib/args.js';
import { FULL } from '../lib/sizes.js';
import { defaultNodeArgs, pausesOf } from '../lib/svc.js';
import { runRetention } from '../scenarios/retention.js';

const storeDir = opt('--store');
if (!storeDir) throw new Error('--store DIR is required');
const messages = Number(opt('--messages') ?? 1_000_000);
const rooms = Number(opt('--rooms') ?? 100);
const rounds = Number(opt('--rounds') ?? 1);
const kinds = flag('--plain-too') ? [false, true] : [true];
const profileDir = opt('--profile');
const pauses = flag('--pauses');
if (profileDir) defaultNodeArgs.push('--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir)}`);

for (let r = 1; r <= rounds; r++)
  for (const purge of kinds) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'retention-round-'));
    for (const name of readdirSync(storeDir).filter((n) => n.startsWith('svc.db'))) cpSync(path.join(storeDir, name), path.join(dir, name));
    let detail = '';
    const res = await runRetention(
      dir,
      messages,
      rooms,
      FULL,
      purge,
      pauses ? (svc, from) => (detail = `\n${pausesOf(svc, from)}`) : undefined,
    );
    console.log(`round ${r} ${purge ? 'purge' : 'plain'}: ${JSON.stringify(res)}${detail}`);
  }
