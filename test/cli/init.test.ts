// svc init: with --yes, driven through its prompts in a pseudo-terminal (script(1)), and with
// injected answers in-process.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { initCommand } from '../../src/cli/commands/init/run.js';
import type { Io } from '../../src/cli/io.js';
import { loadConfig } from '../../src/config/load.js';
import { Chalk } from 'chalk';
import { SVC_BIN } from '../helpers/server.js';
import { cleanEnv, cli, scriptBin } from '../helpers/cli.js';

const t = suite<{ dir: string; sub: (name: string) => string }>('svc init');
t.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-init-'));
  ctx.sub = (name) => path.join(ctx.dir, name);
});
t.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

t('--yes writes a private svc.yaml with the default local posture that loads cleanly', async ({ sub }) => {
  const dir = sub('yes');
  const r = await cli(['init', '--yes', '--dir', dir, '--network-id', 'home', '--name', 'Home Net']);
  assert.is(r.code, 0, r.stderr);
  const file = path.join(dir, 'svc.yaml');
  assert.match(
    r.stdout,
    new RegExp(`^wrote ${file.replace(/[.]/g, '\\.')} \\(network home, open mode, listening on 127\\.0\\.0\\.1:8787\\)$`, 'm'),
  );
  assert.match(r.stdout, /^next: svc serve --config /m);
  assert.not.match(r.stdout, /admin token/);
  assert.is(statSync(file).mode & 0o777, 0o600);
  const c = parse(readFileSync(file, 'utf8'));
  assert.equal(c.network, { id: 'home', name: 'Home Net' });
  assert.is(c.server.listen_addr, '127.0.0.1:8787');
  assert.is(c.auth.mode, 'open');
  assert.is(c.store.backend, 'sqlite');
  const loaded = loadConfig(file, {});
  assert.equal(loaded.warnings, []);
});

t('refuses to overwrite without --force (exit 1, file untouched) and overwrites with it', async ({ sub }) => {
  const dir = sub('force');
  assert.is((await cli(['init', '--yes', '--dir', dir, '--network-id', 'one'])).code, 0);
  const file = path.join(dir, 'svc.yaml');
  const before = readFileSync(file, 'utf8');
  const again = await cli(['init', '--yes', '--dir', dir, '--network-id', 'two']);
  assert.is(again.code, 1);
  assert.match(again.stderr, /svc\.yaml exists; pass --force to overwrite it/);
  assert.is(readFileSync(file, 'utf8'), before);
  const forced = await cli(['init', '--yes', '--force', '--dir', dir, '--network-id', 'two']);
  assert.is(forced.code, 0, forced.stderr);
  assert.is(parse(readFileSync(file, 'utf8')).network.id, 'two');
});

t('without a TTY and without --yes it asks nothing and exits 2', async ({ sub }) => {
  const dir = sub('notty');
  const r = await cli(['init', '--dir', dir]);
  assert.is(r.code, 2);
  assert.match(r.stderr, /not a TTY.*pass --yes/);
  assert.not.ok(existsSync(path.join(dir, 'svc.yaml')));
});

t('an invalid --network-id is a usage error and writes nothing', async ({ sub }) => {
  const dir = sub('badid');
  const r = await cli(['init', '--yes', '--dir', dir, '--network-id', 'no spaces']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--network-id "no spaces": must be letters, digits/);
  assert.not.ok(existsSync(path.join(dir, 'svc.yaml')));
});

t.run();

// ---- Through a pseudo-terminal: script(1) gives the process a TTY; keys are written to it.

interface Pty {
  /** Waits until the screen shows `re` (after the last answer), then types `keys`. */
  answer(re: RegExp, keys: string): Promise<void>;
  waitFor(re: RegExp): Promise<void>;
  exit: Promise<number | null>;
  screen(): string;
}

function pty(args: string[]): Pty {
  const command = [process.execPath, SVC_BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const p = spawn(scriptBin(), ['-qfec', command, '/dev/null'], { env: cleanEnv({ TERM: 'xterm' }), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let from = 0;
  p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((resolve) => p.once('close', (code) => resolve(code)));
  const waitFor = async (re: RegExp) => {
    for (let i = 0; i < 400; i++) {
      const m = re.exec(out.slice(from));
      if (m) {
        from += m.index + m[0].length;
        return;
      }
      if (p.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`the prompt never showed ${re}; screen so far:\n${out}`);
  };
  return {
    waitFor,
    async answer(re, keys) {
      await waitFor(re);
      p.stdin!.write(keys);
    },
    exit,
    screen: () => out,
  };
}

const ENTER = '\r';
const CLEAR_LINE = '\x15'; // Ctrl-U: drop the default before typing
const DOWN = '\x1b[B';

const p = suite<{ dir: string }>('svc init driven through its prompts on a TTY');
p.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-init-pty-'));
});
p.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

p('answers become the config; bearer mode generates an admin token shown once', async ({ dir }) => {
  const target = path.join(dir, 'bearer');
  const s = pty(['init', '--dir', target]);
  await s.answer(/Network id/, `${CLEAR_LINE}lab-net${ENTER}`);
  await s.answer(/Display name/, `The Lab${ENTER}`);
  await s.answer(/Listen address/, ENTER);
  await s.answer(/Auth mode[\s\S]*none: no checks/, DOWN);
  await s.answer(/❯ bearer/, ENTER);
  assert.is(await s.exit, 0, s.screen());
  const file = path.join(target, 'svc.yaml');
  const c = parse(readFileSync(file, 'utf8'));
  assert.equal(c.network, { id: 'lab-net', name: 'The Lab' });
  assert.is(c.server.listen_addr, '127.0.0.1:8787');
  assert.is(c.auth.mode, 'bearer');
  // The operator token of the local CLI, and the admin token shown once.
  assert.equal(
    c.auth.tokens.map((t: { id: string }) => t.id),
    ['operator', 'admin'],
  );
  assert.equal(c.auth.tokens[0].scopes, ['observe', 'write', 'admin']);
  const token = c.auth.tokens[1];
  assert.equal(token.scopes, ['observe', 'write', 'admin', 'attach']);
  const shown = /admin token \(shown once; it is also in svc\.yaml\): (\S+)/.exec(s.screen());
  assert.ok(shown, s.screen());
  assert.is(shown![1], token.value);
  assert.is(s.screen().split(token.value).length - 1, 1, 'the token is printed exactly once');
  assert.is(statSync(file).mode & 0o777, 0o600);
  loadConfig(file, {});
});

p('a bad network id is refused at the prompt until corrected', async ({ dir }) => {
  const target = path.join(dir, 'validate');
  const s = pty(['init', '--dir', target]);
  await s.answer(/Network id/, `${CLEAR_LINE}bad id!${ENTER}`);
  await s.answer(/letters, digits/, `${CLEAR_LINE}good-id${ENTER}`);
  await s.answer(/Display name/, ENTER);
  await s.answer(/Listen address/, `${CLEAR_LINE}nowhere${ENTER}`);
  await s.answer(/must be host:port/, `${CLEAR_LINE}127.0.0.1:9999${ENTER}`);
  await s.answer(/Auth mode[\s\S]*none: no checks/, ENTER);
  assert.is(await s.exit, 0, s.screen());
  const c = parse(readFileSync(path.join(target, 'svc.yaml'), 'utf8'));
  assert.equal(c.network, { id: 'good-id', name: 'good-id' });
  assert.is(c.server.listen_addr, '127.0.0.1:9999');
  assert.is(c.auth.mode, 'open');
});

p('Ctrl-C at a prompt writes nothing and exits 1 without a stack trace', async ({ dir }) => {
  const target = path.join(dir, 'cancel');
  const s = pty(['init', '--dir', target]);
  await s.answer(/Network id/, '\x03');
  assert.is(await s.exit, 1, s.screen());
  assert.match(s.screen(), /svc init: cancelled; nothing written/);
  assert.not.match(s.screen(), /\n\s+at /);
  assert.not.ok(existsSync(path.join(target, 'svc.yaml')));
});

p('an existing file is refused before any question is asked', async ({ dir }) => {
  const target = path.join(dir, 'exists');
  assert.is((await cli(['init', '--yes', '--dir', target])).code, 0);
  const s = pty(['init', '--dir', target]);
  assert.is(await s.exit, 1);
  assert.match(s.screen(), /exists; pass --force/);
  assert.not.match(s.screen(), /Network id/);
});

p.run();

// ---- In-process with injected answers: the restructured command takes its prompter as a value.

function memoryIo(): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { out: (l) => lines.push(l), err: (l) => errors.push(l), color: new Chalk({ level: 0 }), isTTY: true, env: {}, lines, errors };
}

const inj = suite<{ dir: string }>('svc init with injected answers');
inj.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-init-inj-'));
});
inj.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

inj('the prompter gets the flag values as defaults and its answers are written', async ({ dir }) => {
  const io = memoryIo();
  let seen: unknown;
  const code = await initCommand(io, { dir: path.join(dir, 'a'), networkId: 'flagged', name: 'Flagged' }, async (d) => {
    seen = d;
    return { networkId: 'answered', name: 'Answered', listen: '127.0.0.1:7000', mode: 'none' };
  });
  assert.is(code, 0, io.errors.join('\n'));
  assert.equal(seen, { networkId: 'flagged', name: 'Flagged', listen: '127.0.0.1:8787', mode: 'open' });
  const c = parse(readFileSync(path.join(dir, 'a', 'svc.yaml'), 'utf8'));
  assert.is(c.network.id, 'answered');
  assert.is(c.auth.mode, 'none');
});

inj('a wide bind with open registration is written, with the posture warning said at once', async ({ dir }) => {
  const io = memoryIo();
  const code = await initCommand(io, { dir: path.join(dir, 'b') }, async (d) => ({ ...d, listen: '0.0.0.0:8787' }));
  assert.is(code, 0);
  assert.ok(
    io.errors.some((e) => /^warning: /.test(e)),
    io.errors.join('\n'),
  );
});

inj('--yes never calls the prompter', async ({ dir }) => {
  const io = memoryIo();
  const code = await initCommand(io, { dir: path.join(dir, 'c'), yes: true }, async () => {
    throw new Error('asked');
  });
  assert.is(code, 0);
  assert.ok(existsSync(path.join(dir, 'c', 'svc.yaml')));
});

inj.run();
