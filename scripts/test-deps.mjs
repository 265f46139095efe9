#!/usr/bin/env node
// What the test suite needs beyond node_modules, installed when missing, so that the README's
// `npm test` passes on a fresh machine. Each need is one line of data: a file the tests run, the
// environment variable that points them elsewhere, and the Debian package that provides it. The
// tests find each file through needPath, so they run what was checked here; a test whose tool is
// missing fails, it never skips.
// As root (or with password-less sudo) missing packages are installed with apt-get (after
// `apt-get update`); otherwise the run stops with one line saying what to install.
//
// SVC_TEST_DEPS=check: never install, only check (and fail with that line); =dry-run: print the
// commands instead of running them; =off: skip the whole step.

import { accessSync, constants, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** The needs, one per line. */
export const TEST_DEPS = [
  { name: 'Chromium (browser tests, test/browser/)', env: 'SVC_CHROMIUM', path: '/usr/bin/chromium', apt: 'chromium' },
  // `*`: any installed major version, the highest first.
  {
    name: 'PostgreSQL server (Postgres store tests, test/helpers/pg.ts)',
    env: 'SVC_TEST_PG_INITDB',
    path: '/usr/lib/postgresql/*/bin/initdb',
    apt: 'postgresql',
  },
  { name: 'script(1) (CLI tests on a terminal, test/cli/)', env: 'SVC_SCRIPT', path: '/usr/bin/script', apt: 'bsdutils' },
  { name: 'mount(8) (disk-full tests on a tmpfs, test/crash/)', env: 'SVC_MOUNT', path: '/usr/bin/mount', apt: 'mount' },
];

/** The version folders in `dir` (Debian's /usr/lib/postgresql/<major>/), highest first. */
function versionsIn(dir) {
  try {
    return readdirSync(dir)
      .filter((v) => /^\d+(\.\d+)?$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
  } catch {
    return [];
  }
}

/**
 * The file a need checks: its environment override, else its default path, where a `*` stands
 * for the highest version whose file is executable (the pattern itself when there is none).
 */
export function pathOf(dep, env, isExec = isExecutable, versions = versionsIn) {
  if (env[dep.env]) return env[dep.env];
  const [dir, rest] = dep.path.split('/*/');
  if (rest === undefined) return dep.path;
  return (
    versions(dir)
      .map((v) => `${dir}/${v}/${rest}`)
      .find(isExec) ?? dep.path
  );
}

/** The file the tests run for the need overridden by `envName` (e.g. 'SVC_SCRIPT'). */
export const needPath = (envName, env = process.env) =>
  pathOf(
    TEST_DEPS.find((d) => d.env === envName),
    env,
  );

/**
 * The plan for a set of needs. Pure: `missing` are the needs whose file is not executable;
 * `commands` install them (empty when nothing is missing); `fail` is the one line to print
 * when they cannot be installed here.
 */
export function planTestDeps(deps, { env, isExecutable, versions, uid, hasAptGet, hasSudo }) {
  const missing = deps.filter((d) => !isExecutable(pathOf(d, env, isExecutable, versions)));
  if (missing.length === 0 || env.SVC_TEST_DEPS === 'off') return { missing: [], commands: [] };
  const pkgs = [...new Set(missing.map((d) => d.apt))];
  const what = missing.map((d) => `${d.name} at ${pathOf(d, env, isExecutable, versions)}`).join('; ');
  const hint = missing.map((d) => `or set ${d.env} to its path`).join(', ');
  const failLine = `tests need ${what}: install it with \`sudo apt-get install ${pkgs.join(' ')}\` (Debian package${pkgs.length > 1 ? 's' : ''} ${pkgs.join(', ')}), ${hint}`;
  const sudo = uid === 0 ? [] : hasSudo ? ['sudo', '-n'] : undefined;
  if (env.SVC_TEST_DEPS === 'check' || !hasAptGet || sudo === undefined) return { missing, commands: [], fail: failLine };
  const apt = [...sudo, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'];
  return {
    missing,
    commands: [
      [...apt, 'update'],
      [...apt, 'install', '-y', '--no-install-recommends', ...pkgs],
    ],
    fail: failLine,
  };
}

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const found = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** Checks and installs; returns an exit code (0 ready, 1 not). */
export function ensureTestDeps(env = process.env) {
  const facts = {
    env,
    isExecutable,
    uid: process.getuid?.() ?? -1,
    hasAptGet: found('apt-get'),
    // Password-less only: a test run must never stop at a password prompt.
    hasSudo: found('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0,
  };
  const plan = planTestDeps(TEST_DEPS, facts);
  if (plan.missing.length === 0) return 0;
  if (plan.commands.length === 0) {
    process.stderr.write(`${plan.fail}\n`);
    return 1;
  }
  process.stderr.write(`test dependencies missing: ${plan.missing.map((d) => d.name).join(', ')}; installing with apt-get\n`);
  for (const cmd of plan.commands) {
    if (env.SVC_TEST_DEPS === 'dry-run') {
      process.stdout.write(`would run: ${cmd.join(' ')}\n`);
      continue;
    }
    const r = spawnSync(cmd[0], cmd.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) {
      process.stderr.write(`${plan.fail} (\`${cmd.join(' ')}\` failed)\n`);
      return 1;
    }
  }
  if (env.SVC_TEST_DEPS === 'dry-run') return 0;
  const still = planTestDeps(TEST_DEPS, { ...facts, env: { ...env, SVC_TEST_DEPS: 'check' } });
  if (still.missing.length > 0) {
    process.stderr.write(`${still.fail}\n`);
    return 1;
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(ensureTestDeps());
