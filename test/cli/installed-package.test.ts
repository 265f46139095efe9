// A user installs the package, not a checkout. This packs a copy of the checkout (its files as a
// clone would have them, uncommitted changes included, with the checkout's build and its times)
// with `npm pack`, which builds it through `prepare` (`tsc -b` compiles again only when a source
// is newer than the build) while `files` in package.json decides what ships; then it deletes the copy,
// installs the tarball with `npm install -g` into an empty prefix, and runs the README's first
// session from an empty folder with that `svc` alone on the PATH: nothing can be read from a source
// tree. SVC_CONFIG, SVC_URL and SVC_TOKEN are set to the empty string throughout (they count as
// unset). Then a project imports `svc/client` from the installed package and sends with it.
//
// npm runs as the user's npm (their npm config and cache: the test runner gives each file a HOME of
// its own), prefers the cache to the registry, and skips the audit and funding requests. When npm
// is missing or the registry cannot be reached, the test fails: it never skips.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv } from '../helpers/cli.js';
import { runFirstSession } from '../helpers/first-session.js';
import { CHECKOUT as ROOT } from '../helpers/server.js';

const test = suite('the installed package');

interface Ran {
  code: number | null;
  out: string;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    p.once('error', reject);
    p.once('close', (code) => resolve({ code, out }));
  });
}

/**
 * npm as the user runs it from a shell: their npm config and cache (the ones `npm test` resolved
 * and exported, else those of their account's home), none of the other npm_* variables `npm test`
 * exports (its prefixes among them), and the npm that started us if any.
 */
function npm(args: string[], cwd: string): Promise<Ran> {
  const env: NodeJS.ProcessEnv = { HOME: os.userInfo().homedir };
  const kept = new Set(['npm_config_cache', 'npm_config_userconfig']);
  for (const [k, v] of Object.entries(process.env)) if ((!/^npm_/i.test(k) || kept.has(k)) && k !== 'HOME') env[k] = v;
  const cli = process.env.npm_execpath;
  return cli !== undefined && /npm-cli\.js$/.test(cli) ? run(process.execPath, [cli, ...args], cwd, env) : run('npm', args, cwd, env);
}

/** The files of a clone of this checkout, with the changes not yet committed: what git tracks or would track. */
async function checkoutFiles(): Promise<string[]> {
  const listed = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], ROOT, process.env);
  assert.is(listed.code, 0, `git ls-files:\n${listed.out}`);
  return listed.out.split('\0').filter((f) => f !== '' && existsSync(path.join(ROOT, f)));
}

/** The PATH of the session: node's folder and the system's, never a folder of the repository. */
function systemPath(bin: string): string {
  const keep = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((d) => d !== '' && path.isAbsolute(d) && path.relative(ROOT, d).startsWith('..'));
  return [bin, path.dirname(process.execPath), ...keep].join(path.delimiter);
}

test('npm pack, npm install -g of the tarball, then the README first session and svc/client from an empty folder', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-installed-'));
  const copy = path.join(dir, 'checkout');
  const prefix = path.join(dir, 'prefix');
  const work = path.join(dir, 'session');
  const project = path.join(dir, 'project');
  let stop: (() => Promise<void>) | undefined;
  try {
    // Times kept: the build (`tsc -b`) finds the checkout's dist/ up to date when no source is newer,
    // as it would in the checkout, and builds again otherwise.
    for (const f of await checkoutFiles()) cpSync(path.join(ROOT, f), path.join(copy, f), { preserveTimestamps: true });
    for (const built of ['dist', 'tsconfig.tsbuildinfo'])
      if (existsSync(path.join(ROOT, built)))
        cpSync(path.join(ROOT, built), path.join(copy, built), { recursive: true, preserveTimestamps: true });
    // The build (`prepare`: tsc, the schema precompiler) needs the dev dependencies.
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
    const packed = await npm(['pack', '--pack-destination', dir], copy);
    assert.is(packed.code, 0, `npm pack:\n${packed.out}`);
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    assert.ok(tarball !== undefined, `npm pack wrote no tarball:\n${packed.out}`);
    // Nothing of the checkout is left to read from.
    rmSync(copy, { recursive: true, force: true });

    mkdirSync(prefix);
    const installed = await npm(
      ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', path.join(dir, tarball!)],
      dir,
    );
    assert.is(installed.code, 0, `npm install -g:\n${installed.out}`);
    const pkgDir = path.join(prefix, 'lib', 'node_modules', 'svc');
    assert.ok(existsSync(path.join(prefix, 'bin', 'svc')), 'the package put svc into the prefix bin/');

    mkdirSync(work);
    // The user's shell: no NODE_OPTIONS of the test run (it preloads a file of the checkout).
    const env = cleanEnv({
      PATH: systemPath(path.join(prefix, 'bin')),
      NODE_PATH: undefined,
      NODE_OPTIONS: undefined,
      SVC_CONFIG: '',
      SVC_URL: '',
      SVC_TOKEN: '',
    });
    const which = await run('sh', ['-c', 'command -v svc'], work, env);
    assert.is(which.out.trim(), path.join(prefix, 'bin', 'svc'));

    const session = await runFirstSession(readFileSync(path.join(ROOT, 'README.md'), 'utf8'), work, env);
    stop = session.stop;
    const token = /agent token \(shown once[^)]*\): (agt_v1_\S+)/.exec(session.outputs[0] + session.outputs[1])?.[1];
    assert.ok(token !== undefined, `alpha's token is in the output of svc agents register:\n${session.outputs[0]}`);

    // A project of the user's, with the installed package in its node_modules (what `npm link svc` makes).
    mkdirSync(path.join(project, 'node_modules'), { recursive: true });
    writeFileSync(path.join(project, 'package.json'), '{ "name": "uses-svc", "type": "module", "private": true }\n');
    symlinkSync(pkgDir, path.join(project, 'node_modules', 'svc'));
    writeFileSync(
      path.join(project, 'send.js'),
      `import { SvcClient, attach } from 'svc/client';
const http = new SvcClient({ url: process.argv[2], token: process.argv[3] });
await http.send({ id: 'from-the-library', target: { kind: 'room', room_id: 'general' },
                  from: { type: 'agent', id: 'alpha' }, parts: [{ kind: 'text', text: 'hello from svc/client' }] });
const page = await http.roomMessages('general');
console.log(typeof attach, page.messages.map((m) => m.id).join(' '));
`,
    );
    const lib = await run(process.execPath, ['send.js', session.url, token!], project, env);
    assert.is(lib.code, 0, lib.out);
    assert.match(lib.out, /^function .*\bfrom-the-library\b/m);
    const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as {
      exports: { './client': { types: string } };
    };
    assert.ok(existsSync(path.join(pkgDir, pkg.exports['./client'].types)), 'the types of svc/client ship');
  } finally {
    await stop?.();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
