// scripts/test-deps.mjs: `npm test` installs what the tests need outside node_modules (Chromium,
// PostgreSQL, script(1), mount(8)) with apt-get when it can, and otherwise stops with one line
// saying what to install (the runner's own test runs that case: test/scripts/run-tests.test.ts).

import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error: a plain .mjs script without types
import { ensureTestDeps, pathOf, planInstall, TEST_DEPS } from '../../scripts/test-deps.mjs';

type Dep = { name: string; env: string; path: string; apt: string };
const DEPS = TEST_DEPS as Dep[];
const plan = (facts: { uid?: number; hasSudo?: boolean; hasAptGet?: boolean; check?: boolean }) =>
  planInstall(
    DEPS.map((d) => ({ ...d, at: d.path })),
    { uid: 0, hasAptGet: true, hasSudo: false, check: false, ...facts },
  ) as { commands: string[][]; fail: string };

const u = suite('the test dependencies');

u('nothing to do when every needed file is there, or when the step is off', () => {
  const present = Object.fromEntries(DEPS.map((d) => [d.env, process.execPath]));
  assert.is(ensureTestDeps(present), 0);
  assert.is(ensureTestDeps({ SVC_TEST_DEPS: 'off', SVC_CHROMIUM: '/nonexistent/chromium' }), 0);
});

u('as root with apt-get: update, then install the missing packages', () => {
  assert.equal(plan({}).commands, [
    ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'update'],
    [
      'env',
      'DEBIAN_FRONTEND=noninteractive',
      'apt-get',
      'install',
      '-y',
      '--no-install-recommends',
      'chromium',
      'postgresql',
      'bsdutils',
      'mount',
    ],
  ]);
});

u('not root: password-less sudo is used, else one line says what to install', () => {
  assert.equal(plan({ uid: 1000, hasSudo: true }).commands[0]!.slice(0, 2), ['sudo', '-n']);
  const p = plan({ uid: 1000, hasSudo: false });
  assert.equal(p.commands, []);
  assert.match(
    p.fail,
    /^tests need Chromium .* at \/usr\/bin\/chromium; PostgreSQL .* at \/usr\/lib\/postgresql\/\*\/bin\/initdb; script\(1\) .* at \/usr\/bin\/script; mount\(8\) .* at \/usr\/bin\/mount: install it with `sudo apt-get install chromium postgresql bsdutils mount`/,
  );
  assert.not.match(p.fail, /\n/);
  assert.equal(plan({ hasAptGet: false }).commands, [], 'no apt-get');
  assert.equal(plan({ check: true }).commands, [], 'SVC_TEST_DEPS=check');
});

u('the variable is the path checked, and the line names it', () => {
  const chromium = DEPS.find((d) => d.env === 'SVC_CHROMIUM')!;
  const at = pathOf(chromium, { SVC_CHROMIUM: '/opt/chrome' });
  assert.is(at, '/opt/chrome');
  assert.match(
    planInstall([{ ...chromium, at }], { uid: 0, hasAptGet: false }).fail,
    /at \/opt\/chrome: .*or set SVC_CHROMIUM to its path$/,
  );
});

u('PostgreSQL: any installed major version counts, the highest with an initdb first', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-pg-versions-'));
  try {
    const dep = { name: 'initdb', env: 'SVC_TEST_INITDB_HERE', path: `${dir}/*/bin/initdb`, apt: 'postgresql' };
    assert.is(pathOf(dep, {}), dep.path, 'none installed: the pattern, which is not executable');
    for (const v of ['9.6', '15', '16', '17']) mkdirSync(path.join(dir, v, 'bin'), { recursive: true });
    for (const v of ['9.6', '15', '16']) writeFileSync(path.join(dir, v, 'bin', 'initdb'), '');
    assert.is(pathOf(dep, {}), dep.path, 'initdb files that are not executable do not count');
    chmodSync(path.join(dir, '9.6', 'bin', 'initdb'), 0o755);
    assert.is(pathOf(dep, {}), `${dir}/9.6/bin/initdb`, 'a version other than 15 satisfies the need');
    for (const v of ['15', '16']) chmodSync(path.join(dir, v, 'bin', 'initdb'), 0o755);
    assert.is(pathOf(dep, {}), `${dir}/16/bin/initdb`, '17 has no initdb; 16 is above 9.6 as a number');
    assert.is(pathOf(dep, { SVC_TEST_INITDB_HERE: '/opt/pg/initdb' }), '/opt/pg/initdb');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

u('each need is one line of data: a check path, its override variable and its Debian package', () => {
  for (const d of DEPS) {
    assert.type(d.name, 'string');
    assert.match(d.env, /^SVC_[A-Z_]+$/);
    assert.ok(path.isAbsolute(d.path));
    assert.match(d.apt, /^[a-z0-9.+-]+$/);
  }
});

u.run();
