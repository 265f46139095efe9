// Runs test files one after another in this process (uvu's deferred mode, as its CLI does), so
// what they load is loaded once. Around each file: `tests: file F`, then `tests: done F code C cpu S
// ms M` (C 1 when a test failed; S CPU seconds with waited-for children), which run-tests.mjs cuts at.
//   node scripts/test-group.mjs FILE.js...

import { pathToFileURL } from 'node:url';
import { cpuOf } from './test-plan.mjs';

globalThis.UVU_DEFER = 1;
const uvu = await import('uvu');
let failed = false;
for (const file of process.argv.slice(2)) {
  const [cpu, t0] = [cpuOf(), Date.now()];
  process.stdout.write(`\ntests: file ${file}\n`);
  // A queue of this file's suites only: exec runs and counts them, then comes the next file's.
  globalThis.UVU_QUEUE = [[null]];
  globalThis.UVU_INDEX = 0;
  process.exitCode = 0;
  await import(pathToFileURL(file).href);
  await uvu.exec();
  const code = process.exitCode;
  failed ||= code !== 0;
  process.stdout.write(`\ntests: done ${file} code ${code} cpu ${(cpuOf() - cpu).toFixed(1)} ms ${Date.now() - t0}\n`);
}
process.exitCode = failed ? 1 : 0;
