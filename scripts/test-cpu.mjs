// Loaded into every test file's process by scripts/run-tests.mjs (--import): when the process
// exits, writes the CPU time it used, its own plus that of every child it waited for (the `svc`
// processes a test starts, and theirs), to the file SVC_TEST_CPU_FILE names. The runner reports it
// per file and per area: on a shared machine wall times say more about the load than the tests.
// Linux only (/proc); elsewhere nothing is written and the report leaves CPU out.

import { readFileSync, writeFileSync } from 'node:fs';

// Clock ticks per second of /proc/<pid>/stat: 100 on every Linux Node runs on (USER_HZ).
const TICKS = 100;

const out = process.env.SVC_TEST_CPU_FILE;
if (out) {
  process.once('exit', () => {
    try {
      // After the command name (in parentheses, may hold spaces): fields 3.. of proc(5).
      const stat = readFileSync('/proc/self/stat', 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, cutime, cstime are fields 14-17, i.e. 11-14 here. Written as "total own":
      // all of it, and the test process's own share (tsx, the test, what it imports from src/).
      const sum = (fields) => fields.reduce((n, i) => n + Number(f[i]), 0) / TICKS;
      const total = sum([11, 12, 13, 14]);
      if (Number.isFinite(total)) writeFileSync(out, `${total} ${sum([11, 12])}`);
    } catch {
      // No /proc: no CPU figure for this file.
    }
  });
}
