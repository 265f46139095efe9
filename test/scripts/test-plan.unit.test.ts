// What the test runner picks and how it judges a file (scripts/test-plan.mjs), with exact values.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { filesUnder, groupFiles, judge, selectFiles, splitGroupOutput } from '../../scripts/test-plan.mjs';

const ALL = [
  'cli/apply.test.ts',
  'cli/cli.unit.test.ts',
  'network/apply.test.ts',
  'store/postgres/search.test.ts',
  'store/search.test.ts',
  'store/write-health.unit.test.ts',
];
const DIRS = new Set(['cli', 'network', 'store', 'store/postgres']);
const pick = (areas: string[], unit = false) => selectFiles(ALL, areas, unit, (a: string) => DIRS.has(a));

const t = suite('test plan');

t('the test files are those under test/, outside helpers/, node_modules/ and .artifacts/', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-test-files-'));
  const names = ['b/x.test.ts', 'a.test.ts', 'b/c/y.unit.test.ts', 'b/z.ts', 'helpers/h.test.ts', '.artifacts/r/w.test.ts'];
  for (const f of names) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), '');
  }
  try {
    assert.equal(filesUnder(dir, '.test.ts'), ['a.test.ts', 'b/c/y.unit.test.ts', 'b/x.test.ts']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t('no area is every file; --unit keeps the *.unit.test.ts ones', () => {
  assert.equal(pick([]), ALL);
  assert.equal(pick([], true), ['cli/cli.unit.test.ts', 'store/write-health.unit.test.ts']);
});

t('a folder names the files under it, written as test/AREA/ too; a word names every path containing it', () => {
  assert.equal(pick(['store/postgres']), ['store/postgres/search.test.ts']);
  assert.equal(pick(['test/cli/']), ['cli/apply.test.ts', 'cli/cli.unit.test.ts']);
  assert.equal(pick(['apply']), ['cli/apply.test.ts', 'network/apply.test.ts']);
  assert.equal(pick(['store', 'cli/apply']), [
    'cli/apply.test.ts',
    'store/postgres/search.test.ts',
    'store/search.test.ts',
    'store/write-health.unit.test.ts',
  ]);
  assert.equal(pick(['store'], true), ['store/write-health.unit.test.ts']);
  assert.equal(pick(['nothing-here']), []);
});

t('files run longest first; a file without a time counts 5 s, a unit test 1 s', () => {
  const alone = groupFiles(['a.test.ts', 'b.unit.test.ts', 'c.test.ts', 'd.test.ts'], { 'c.test.ts': 30, 'd.test.ts': 4 }, 0);
  assert.equal(alone, [['c.test.ts'], ['a.test.ts'], ['d.test.ts'], ['b.unit.test.ts']]);
});

t('files of a top folder share a process up to the budget, longest first; a long file or one named alone runs by itself', () => {
  const times = {
    'a/x.test.ts': 12,
    'a/y.test.ts': 10,
    'a/b/z.test.ts': 9,
    'a/w.test.ts': 5,
    'c/v.test.ts': 40,
    'c/u.test.ts': 3,
    'c/own.test.ts': 2,
  };
  const groups = groupFiles(Object.keys(times), times, 30, (f: string) => f === 'c/own.test.ts');
  assert.equal(groups, [
    ['c/v.test.ts'],
    ['a/x.test.ts', 'a/y.test.ts', 'a/w.test.ts'],
    ['a/b/z.test.ts'],
    ['c/u.test.ts'],
    ['c/own.test.ts'],
  ]);
  // Budget 0: every file alone, longest first.
  assert.equal(groupFiles(['a/x.test.ts', 'a/w.test.ts'], times, 0), [['a/x.test.ts'], ['a/w.test.ts']]);
});

t("a group's output is cut at its markers: each file's part, and whether it started and how it ended", () => {
  const out = [
    'boot\n',
    'tests: file /b/one.js\n',
    'one passed\n',
    'tests: done /b/one.js code 0 cpu 0.4 ms 120\n',
    'tests: file /b/two.js\n',
    'two died\n',
  ].join('');
  assert.equal(splitGroupOutput(out, ['/b/one.js', '/b/two.js', '/b/three.js']), [
    { started: true, out: 'boot\none passed\n', code: 0, cpu: 0.4, ms: 120 },
    { started: true, out: 'two died\n' },
    { started: false, out: '' },
  ]);
});

t("uvu's summary gives the counts; a suite whose before hook threw shows as tests neither passed nor skipped", () => {
  const ok = '\n  Total:     5\n  Passed:    4\n  Skipped:   1\n  Duration:  12ms\n';
  assert.equal(judge(ok), { total: 5, passed: 4, skipped: 1, failed: 0 });
  assert.equal(judge('\x1b[2m  Total:     \x1b[0m3\n\x1b[32m  Passed:    \x1b[0m0\n  Skipped:   0\n'), {
    total: 3,
    passed: 0,
    skipped: 0,
    failed: 3,
  });
  assert.ok(Number.isNaN(judge('Error: cannot find module').failed));
});

t.run();
