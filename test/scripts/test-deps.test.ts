// scripts/test-deps.mjs: `npm test` installs what the tests need outside node_modules (Chromium,
// PostgreSQL, script(1), mount(8)) with apt-get when it can, and otherwise stops with one line
// saying what to install.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
// @ts-expect-error: a plain .mjs script without types
import { pathOf, planTestDeps, TEST_DEPS } from '../../scripts/test-deps.mjs';
import { ROOT } from '../helpers/server.js';

interface Facts {
  env: Record<string, string>;
  isExecutable: (p: string) => boolean;
  uid: number;
  hasAptGet: boolean;
  hasSudo: boolean;
  versions: (dir: string) => string[];
}
const plan = (f: Partial<Facts>) =>
  planTestDeps(TEST_DEPS, { env: {}, isExecutable: () => false, uid: 0, hasAptGet: true, hasSudo: false, ...f }) as {
    missing: { apt: string }[];
    commands: string[][];
    fail?: string;
  };

const u = suite('the test-dependency plan (pure)');

u('nothing to do when every needed file is there', () => {
  assert.equal(plan({ isExecutable: () => true }), { missing: [], commands: [] });
});

u('as root with apt-get: update, then install the missing packages', () => {
  const p = plan({});
  assert.equal(
    p.missing.map((d) => d.apt),
    ['chromium', 'postgresql', 'bsdutils', 'mount'],
  );
  assert.equal(p.commands, [
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
    p.fail!,
    /^tests need Chromium .* at \/usr\/bin\/chromium; PostgreSQL .* at \/usr\/lib\/postgresql\/\*\/bin\/initdb; script\(1\) .* at \/usr\/bin\/script; mount\(8\) .* at \/usr\/bin\/mount: install it with `sudo apt-get install chromium postgresql bsdutils mount`/,
  );
  assert.not.match(p.fail!, /\n/);
});

u('no apt-get: one line; the env override is the path checked', () => {
  const p = plan({ hasAptGet: false, env: { SVC_CHROMIUM: '/opt/chrome' }, isExecutable: (f) => f !== '/opt/chrome' });
  assert.match(p.fail!, /at \/opt\/chrome: .*or set SVC_CHROMIUM to its path$/);
});

u('PostgreSQL: any installed major version counts, the highest with an initdb first', () => {
  const pgDep = (TEST_DEPS as { env: string }[]).find((d) => d.env === 'SVC_TEST_PG_INITDB');
  const at = (installed: string[]) =>
    pathOf(
      pgDep,
      {},
      (f: string) => installed.includes(f),
      () => ['17', '16', '15', '9.6'],
    );
  const initdb = (v: string) => `/usr/lib/postgresql/${v}/bin/initdb`;
  assert.is(at([initdb('15'), initdb('16')]), initdb('16'));
  assert.is(at([initdb('9.6')]), initdb('9.6'));
  assert.is(at([]), '/usr/lib/postgresql/*/bin/initdb', 'none installed: the pattern, which is not executable');
  assert.is(pathOf(pgDep, { SVC_TEST_PG_INITDB: '/opt/pg/initdb' }), '/opt/pg/initdb');
  const p = plan({ isExecutable: (f) => f === initdb('17'), versions: () => ['17'] });
  assert.not.ok(
    p.missing.some((d) => d.apt === 'postgresql'),
    'a version other than 15 satisfies the need',
  );
});

u('each need is one line of data: a check path, its override variable and its Debian package', () => {
  for (const d of TEST_DEPS as { name: string; env: string; path: string; apt: string }[]) {
    assert.type(d.name, 'string');
    assert.match(d.env, /^SVC_[A-Z_]+$/);
    assert.ok(path.isAbsolute(d.path));
    assert.match(d.apt, /^[a-z0-9.+-]+$/);
  }
});
u.run();

const p = suite('scripts/test-deps.mjs as a process');
const script = path.join(ROOT, 'scripts/test-deps.mjs');
const run = (env: Record<string, string>) => spawnSync(process.execPath, [script], { env: { ...process.env, ...env }, encoding: 'utf8' });

p('with Chromium missing and installing not allowed it fails with exactly one line', () => {
  const r = run({ SVC_CHROMIUM: '/nonexistent/chromium', SVC_TEST_DEPS: 'check' });
  assert.is(r.status, 1);
  assert.is(r.stdout, '');
  const lines = r.stderr.trim().split('\n');
  assert.is(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /^tests need Chromium .* at \/nonexistent\/chromium: install it with `sudo apt-get install chromium`/);
});

p('with Chromium missing the plan runs apt-get update before the install (dry run)', () => {
  const r = run({ SVC_CHROMIUM: '/nonexistent/chromium', SVC_TEST_DEPS: 'dry-run' });
  if (r.status === 1) {
    // Neither root nor password-less sudo here: the one-line failure is the right answer.
    assert.match(r.stderr, /^tests need Chromium/m);
    return;
  }
  assert.is(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    /would run: (sudo -n )?env DEBIAN_FRONTEND=noninteractive apt-get update\nwould run: (sudo -n )?env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium\n/,
  );
});

p('with Chromium present it does nothing', () => {
  const r = run({ SVC_CHROMIUM: process.execPath });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stdout + r.stderr, '');
});
p.run();
