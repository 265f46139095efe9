// Runs test files one after another in this one process (uvu's deferred mode, as its own CLI
// does), so that what they load (the server's ~550 modules) is loaded once. Around each file it
// prints `tests: file F` and, when F is done, `tests: done F code C cpu S ms M` (C: 1 when one of
// its tests failed; S: the CPU seconds of this process and the children it waited for), from which
// scripts/run-tests.mjs tells the files' results apart.
//
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
