// scripts/run-tests.mjs as a process over a folder of small test files: files of a folder in one
// process unless a file asks for its own, the `N passed, N failed` line, exit 1 when a file fails,
// a test throws or a suite's before hook throws (uvu itself exits 0 then), a file that ends its
// process (the files after it still run) or runs nothing, failing files' output in full, areas,
// timeouts, the build that test and `svc` processes run, a missing tool.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../helpers/server.js';

const t = suite<{ dir: string }>('the test runner');

const file = (dir: string, name: string, body: string) => {
  mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  writeFileSync(
    path.join(dir, name),
    `import { suite } from 'uvu';\nimport * as assert from 'uvu/assert';\nconst t = suite('s');\n${body}\nt.run();\n`,
  );
};

t.before((ctx) => {
  // Under the package root, so the files find uvu in node_modules.
  mkdirSync(path.join(ROOT, 'test/.artifacts'), { recursive: true });
  ctx.dir = mkdtempSync(path.join(ROOT, 'test/.artifacts/runner-'));
  file(ctx.dir, 'a/pass.unit.test.ts', "t('one', () => assert.ok(true));\nt('two', () => assert.ok(true));");
  file(ctx.dir, 'a/fail.unit.test.ts', "t('adds', () => assert.is(1 + 1, 3, 'MARK-FAILED-ASSERT'));\nt('fine', () => assert.ok(true));");
  file(ctx.dir, 'b/before.unit.test.ts', "t.before(() => { throw new Error('setup failed'); });\nt('never runs', () => assert.ok(true));");
  file(ctx.dir, 'b/hang.unit.test.ts', "t('waits forever', () => new Promise(() => setInterval(() => {}, 1000)));");
  file(ctx.dir, 'c/needs.test.ts', "t('never runs', () => assert.ok(true));");
  // Each writes its process id; `own` asks for a process of its own.
  const pid = (name: string) =>
    `import { writeFileSync } from 'node:fs';\nt('pid', () => writeFileSync(${JSON.stringify(path.join(ctx.dir, name))}, String(process.pid)));`;
  file(ctx.dir, 'e/one.unit.test.ts', pid('pid-one'));
  file(ctx.dir, 'e/two.unit.test.ts', pid('pid-two'));
  file(ctx.dir, 'e/own.unit.test.ts', `// tests: a process of its own (the test says so)\n${pid('pid-own')}`);
  file(ctx.dir, 'f/a-exits.unit.test.ts', "t('exits', () => process.exit(3));");
  file(ctx.dir, 'f/b-after.unit.test.ts', "t('still runs', () => assert.ok(true));");
  // Imported by the file before it in their process, base runs its test there and nothing in its own turn.
  file(ctx.dir, 'g/base.unit.test.ts', "t('once', () => assert.ok(true));");
  writeFileSync(path.join(ctx.dir, 'g/again.unit.test.ts'), "await import('./base.unit.test.js');\n");
});
t.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

/** A run of area `a` (a passing and a failing file), made once and read by the tests that need it: each run builds the sources. */
let areaA: ReturnType<typeof run> | undefined;
const runA = (dir: string) => (areaA ??= run(dir, ['a']));

const run = (dir: string, args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [path.join(ROOT, 'scripts/run-tests.mjs'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, SVC_TEST_DIR: dir, SVC_TEST_DEPS: 'off', SVC_TEST_JOBS: '3', SVC_TEST_FILE_TIMEOUT_MS: '4000', ...env },
  });

t('an area of passing files passes with the count line', ({ dir }) => {
  const r = run(dir, ['a/pass']);
  assert.is(r.status, 0, r.stdout + r.stderr);
  // Each file's line says what CPU it cost (this machine has /proc), and the run their sum.
  assert.match(r.stdout, /^ok .* a\/pass\.unit\.test\.ts \(2 passed, cpu \d+\.\d s\)$/m);
  assert.match(
    r.stdout,
    /^wall time: \d+ s with \d+ at a time; cpu: the files' \d+ s, the checks' and other children's -?\d+ s(, PostgreSQL's \d+ s)?; the host busy \d+%$/m,
  );
  assert.match(r.stdout, /\n2 passed, 0 failed\n$/);
});

t('a failing file is run from compiled JavaScript, and its stack names the TypeScript file and line', ({ dir }) => {
  const r = runA(dir);
  assert.is(r.status, 1, r.stdout + r.stderr);
  // The fixture's line 4 is the assertion (three lines of imports and the suite come first).
  assert.match(r.stdout, /a\/fail\.unit\.test\.ts:4:\d+\)/);
});

t('a test process runs the compiled JavaScript beside its source, with no loader and not tsx', ({ dir }) => {
  file(
    dir,
    'd/loader.unit.test.ts',
    "t('plain', () => { assert.match(import.meta.url, /[\\/]\\.test-build-\\d+[\\/].*[\\/]d[\\/]loader\\.unit\\.test\\.js$/); assert.not.ok(process.execArgv.some((a) => /tsx|loader/.test(a)), process.execArgv.join(' ')); });",
  );
  const r = run(dir, ['d/loader']);
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /\n1 passed, 0 failed\n$/);
});

t('svc processes run the build as plain JavaScript, with what src/ reads beside it', ({ dir }) => {
  file(
    dir,
    'd/svc.test.ts',
    [
      "import { execFileSync } from 'node:child_process';",
      "import { readFileSync } from 'node:fs';",
      "t('svc --version', () => {",
      '  const bin = process.env.SVC_TEST_BIN!;',
      '  assert.match(bin, /[\\/]\\.test-build-\\d+[\\/]src[\\/]cli[\\/]main\\.js$/);',
      "  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));",
      "  assert.match(execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }), pkg.version);",
      '});',
    ].join('\n'),
  );
  const r = run(dir, ['d/svc'], { SVC_TEST_FILE_TIMEOUT_MS: '60000' });
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /\n1 passed, 0 failed\n$/);
});

t('a failing assertion fails the run and its output is printed in full', ({ dir }) => {
  const r = runA(dir);
  assert.is(r.status, 1);
  assert.match(r.stdout, /^FAIL .* a\/fail\.unit\.test\.ts \(1 passed, 1 failed, cpu \d+\.\d s\)$/m);
  assert.match(r.stdout, /==== a\/fail\.unit\.test\.ts failed; its output:[\s\S]*MARK-FAILED-ASSERT/);
  assert.match(r.stdout, /\n3 passed, 1 failed\n$/);
});

t('a suite whose before hook threw fails although uvu exits 0; a file that never ends is stopped at its limit', ({ dir }) => {
  const r = run(dir, ['b']);
  assert.is(r.status, 1);
  assert.match(r.stdout, /^FAIL .* b\/before\.unit\.test\.ts/m);
  assert.match(
    r.stdout,
    /b\/before\.unit\.test\.ts failed; its output:[\s\S]*some suites did not run their tests \(a before hook failed\?\)/,
  );
  assert.match(r.stdout, /^FAIL .* b\/hang\.unit\.test\.ts/m);
  assert.match(r.stdout, /b\/hang\.unit\.test\.ts gave no result within 4 s; stopped/);
});

t('files of a folder share a process, one that asks runs alone, one that ends its process does not take the others with it', ({ dir }) => {
  const r = run(dir, ['e', 'f', 'g']);
  assert.is(r.status, 1, r.stdout + r.stderr);
  const pid = (name: string) => readFileSync(path.join(dir, name), 'utf8');
  assert.is(pid('pid-one'), pid('pid-two'));
  assert.is.not(pid('pid-own'), pid('pid-one'));
  assert.match(r.stdout, /^ok .* e\/own\.unit\.test\.ts \(1 passed/m);
  assert.match(r.stdout, /^FAIL .* f\/a-exits\.unit\.test\.ts/m);
  assert.match(r.stdout, /f\/a-exits\.unit\.test\.ts ended its process \(code 3\) before its tests did/);
  assert.match(r.stdout, /^ok .* f\/b-after\.unit\.test\.ts \(1 passed/m);
  assert.match(r.stdout, /^FAIL .* g\/base\.unit\.test\.ts/m);
  assert.match(r.stdout, /g\/base\.unit\.test\.ts ran no test/);
});

t('with a tool missing and installing not allowed, the run stops at once with one line saying what to install', ({ dir }) => {
  const r = run(dir, ['c/needs'], { SVC_TEST_DEPS: 'check', SVC_CHROMIUM: '/nonexistent/chromium' });
  assert.is(r.status, 1);
  assert.is(r.stdout, '', 'nothing was built or run');
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^tests need Chromium .* at \/nonexistent\/chromium.*: install it with `sudo apt-get install chromium/);
});

t('an area that names nothing is an error, not an empty pass', ({ dir }) => {
  const r = run(dir, ['no-such-area']);
  assert.is(r.status, 1);
  assert.match(r.stderr, /tests: no test file matches no-such-area/);
});

t.run();
