// Loaded first into each test process (`--import`): tells scripts/run-tests.mjs the CPU the file
// cost, with the processes it waited for (svc, chromium), as its last line.

import { writeSync } from 'node:fs';
import { cpuOf } from './test-plan.mjs';

process.once('exit', () => {
  const cpu = cpuOf();
  if (cpu >= 0) writeSync(2, `\ntests: cpu ${cpu.toFixed(1)} s\n`);
});
