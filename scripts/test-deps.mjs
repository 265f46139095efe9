// What the tests need beyond node_modules, installed when missing so that `npm test` passes on a
// fresh machine: per need, a file the tests run (found through needPath, so they run what was
// checked), the variable that points elsewhere, the Debian package. As root or with password-less
// sudo, apt-get installs what is missing; otherwise the run stops with one line saying what to
// install. SVC_TEST_DEPS=check: only check; =off: skip the step.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';

/** The needs, one per line; a `*` in a path stands for any installed major version, the highest first. */
export const TEST_DEPS = [
  { name: 'Chromium (browser tests, test/browser/)', env: 'SVC_CHROMIUM', path: '/usr/bin/chromium', apt: 'chromium' },
  { name: 'PostgreSQL (Postgres store tests)', env: 'SVC_TEST_PG_INITDB', path: '/usr/lib/postgresql/*/bin/initdb', apt: 'postgresql' },
  { name: 'script(1) (CLI tests on a terminal, test/cli/)', env: 'SVC_SCRIPT', path: '/usr/bin/script', apt: 'bsdutils' },
  { name: 'mount(8) (disk-full tests on a tmpfs, test/crash/)', env: 'SVC_MOUNT', path: '/usr/bin/mount', apt: 'mount' },
];

const isExecutable = (file) => ((statSync(file, { throwIfNoEntry: false })?.mode ?? 0) & 0o111) !== 0;

/** The file a need checks: its variable's value, else its path, with a `*` the highest version whose file is executable (or left as is). */
export function pathOf(dep, env = process.env) {
  const [dir, rest] = dep.path.split('/*/');
  if (env[dep.env] || rest === undefined) return env[dep.env] || dep.path;
  const versions = existsSync(dir) ? readdirSync(dir).filter((v) => /^\d+(\.\d+)?$/.test(v)) : [];
  const found = versions.sort((a, b) => b - a).map((v) => `${dir}/${v}/${rest}`);
  return found.find(isExecutable) ?? dep.path;
}

/** The file the tests run for the need overridden by `envName` (e.g. 'SVC_SCRIPT'). */
export const needPath = (envName, env = process.env) =>
  pathOf(
    TEST_DEPS.find((d) => d.env === envName),
    env,
  );

/** For the `missing` needs (each with `at`, where looked for): the commands that install them (none if they cannot be here) and the line to print if not. */
export function planInstall(missing, { check, uid, hasAptGet, hasSudo }) {
  const pkgs = [...new Set(missing.map((d) => d.apt))];
  const what = missing.map((d) => `${d.name} at ${d.at}`).join('; ');
  const hint = missing.map((d) => `or set ${d.env} to its path`).join(', ');
  const fail = `tests need ${what}: install it with \`sudo apt-get install ${pkgs.join(' ')}\`, ${hint}`;
  const sudo = uid === 0 ? [] : hasSudo ? ['sudo', '-n'] : undefined;
  if (check || !hasAptGet || !sudo) return { commands: [], fail };
  const apt = (...args) => [...sudo, 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args];
  return { commands: [apt('update'), apt('install', '-y', '--no-install-recommends', ...pkgs)], fail };
}

/** Checks and installs; returns an exit code (0 ready, 1 not). */
export function ensureTestDeps(env = process.env) {
  if (env.SVC_TEST_DEPS === 'off') return 0;
  const missingNow = () => TEST_DEPS.map((d) => ({ ...d, at: pathOf(d, env) })).filter((d) => !isExecutable(d.at));
  const missing = missingNow();
  if (missing.length === 0) return 0;
  const plan = planInstall(missing, {
    check: env.SVC_TEST_DEPS === 'check',
    uid: process.getuid?.() ?? -1,
    hasAptGet: spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0,
    // Password-less only: a test run must never stop at a password prompt.
    hasSudo: spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0,
  });
  if (plan.commands.length > 0) {
    process.stderr.write(`test dependencies missing: ${missing.map((d) => d.name).join(', ')}; installing with apt-get\n`);
    // A failed command says why itself; what is installed afterwards decides.
    for (const cmd of plan.commands) if (spawnSync(cmd[0], cmd.slice(1), { stdio: ['ignore', 'inherit', 'inherit'] }).status !== 0) break;
    if (missingNow().length === 0) return 0;
  }
  process.stderr.write(`${plan.fail}\n`);
  return 1;
}
