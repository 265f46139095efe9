// `svc invite accept` as processes: it shows the rooms it will share, refuses to federate an
// existing private room without explicit consent (--allow-private), and refuses invite names that
// hold terminal escapes or bidi/invisible characters. Everything the CLI prints is free of them.
// The servers it asks run in the test process, but for the one killed before its first checkpoint.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, stringify } from 'yaml';
import { oneLine } from '../../src/cli/format.js';
import { terminalSafe } from '../../src/cli/io.js';
import { roomsNeedingConsent } from '../../src/cli/commands/invite/rooms.js';
import { encodeInvite } from '../../src/pairing/invite.js';
import { inviteAccept } from '../../src/cli/commands/invite/run.js';
import type { Io } from '../../src/cli/io.js';
import { Chalk } from 'chalk';
import { cli, freePort, MEMORY_STORE } from '../helpers/cli.js';
import { startApp } from '../helpers/app.js';
import { type HttpServer, startServer } from '../helpers/server.js';
import { freshSchema } from '../helpers/pg.js';

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

const u = suite('terminal safety (pure)');
u('oneLine replaces C0/C1 controls and bidi/invisible characters and folds newlines', () => {
  assert.is(oneLine('a\x1b[2Jb\u202Ec\u2066d\u2067e\u2068f\u2069g\u200Bh\u200Fi\uFEFFj\u0085k\nl'), 'a?[2Jb?c?d?e?f?g?h?i?j?k ⏎ l');
  assert.is(oneLine('Ünïcødé ok, emoji 🙂'), 'Ünïcødé ok, emoji 🙂');
});
u('the io guard keeps our colour codes and newlines but nothing else invisible', () => {
  assert.is(terminalSafe('\x1b[32mok\x1b[39m\tx\ny'), '\x1b[32mok\x1b[39m\tx\ny');
  assert.is(terminalSafe('a\x1b[2Jb\rc\u202Ed'), 'a?[2Jb?c?d');
});
u('consent is needed for private and unknown rooms not named by --allow-private', () => {
  const rooms = [
    { id: 'a', state: 'new' as const },
    { id: 'b', state: 'public' as const },
    { id: 'c', state: 'private' as const },
    { id: 'd', state: 'unknown' as const, why: 'x' },
  ];
  assert.equal(
    roomsNeedingConsent(rooms, new Set()).map((r) => r.id),
    ['c', 'd'],
  );
  assert.equal(
    roomsNeedingConsent(rooms, new Set(['c'])).map((r) => r.id),
    ['d'],
  );
});
u.run();

interface Ctx {
  dir: string;
  /** The config of a running server (svc init's, on the memory store: only asked here) and the server. */
  running: { config: string; s: HttpServer; operator: string };
}

const t = suite<Ctx>('svc invite accept never shares a private room silently');
t.before(async (ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-invite-safety-'));
  // One server for the tests that need one running: its store is never read from disk here (the
  // stopped-server reads are the second suite's), so it runs on the memory store (helpers/cli.ts).
  const config = await init(ctx.dir, 'away2');
  edit(config, (c) => (c.store = MEMORY_STORE));
  ctx.running = { config, s: await startApp({ dir: path.dirname(config), keepConfig: true }), operator: operatorOf(config) };
});
t.after(async (ctx) => {
  await ctx.running?.s.dispose();
  rmSync(ctx.dir, { recursive: true, force: true });
});

let template: Promise<string> | undefined;

/**
 * The config `svc init --yes --network-id ID --listen LISTEN` writes, in `dir/ID`. Init itself runs
 * once per file (these tests are about invites, and a dozen inits cost seconds of CPU); each
 * network is its output with its own id, name and address (the operator token is shared).
 */
async function initConfig(dir: string, id: string, listen: string): Promise<string> {
  template ??= (async () => {
    const d = mkdtempSync(path.join(tmpdir(), 'svc-invite-init-'));
    try {
      const r = await cli(['init', '--yes', '--dir', d, '--network-id', 'template-net', '--listen', '127.0.0.1:0']);
      assert.is(r.code, 0, r.stderr);
      return readFileSync(path.join(d, 'svc.yaml'), 'utf8');
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  })();
  const text = await template;
  const mine = text
    .replace(/^ {2}id: template-net\n {2}name: template-net$/m, `  id: ${id}\n  name: ${id}`)
    .replace(/^ {2}listen_addr: 127\.0\.0\.1:0\b/m, `  listen_addr: ${listen}`);
  assert.ok(mine.includes(`id: ${id}`) && mine.includes(`listen_addr: ${listen}`), 'the template changed shape');
  const d = path.join(dir, id);
  mkdirSync(d, { recursive: true });
  const file = path.join(d, 'svc.yaml');
  writeFileSync(file, mine, { mode: 0o600 });
  return file;
}

async function init(dir: string, id: string): Promise<string> {
  // Not the shared default port: whatever answers there is not this config's server.
  return initConfig(dir, id, `127.0.0.1:${await freePort()}`);
}

/** The operator token `svc init` wrote into a config. */
function operatorOf(file: string): string {
  return parse(readFileSync(file, 'utf8')).auth.tokens.find((x: { id: string }) => x.id === 'operator').value;
}

/** Creates rooms through the API with the config's operator token (setup: svc rooms create is tested elsewhere). */
async function createRooms(s: HttpServer, config: string, rooms: { id: string; visibility?: string }[]): Promise<void> {
  for (const room of rooms) {
    const r = await s.post('/v1/rooms', room, operatorOf(config));
    assert.ok(r.status < 300, r.text);
  }
}

function edit(file: string, change: (c: Record<string, any>) => void): void {
  const c = parse(readFileSync(file, 'utf8'));
  change(c);
  writeFileSync(file, stringify(c), { mode: 0o600 });
}

/** Every file of a folder with its size and mtime: what a read-only look must leave as it was. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const st = statSync(path.join(dir, name));
    if (st.isFile()) out[name] = `${st.size}:${st.mtimeMs}`;
  }
  return out;
}

async function invite(home: string, rooms: string): Promise<string> {
  const r = await cli(['invite', 'create', '--config', home, '--relay-url', 'ws://127.0.0.1:9/v1/relay', '--rooms', rooms]);
  assert.is(r.code, 0, r.stderr);
  return r.stdout.trim();
}

/**
 * An invite as `svc invite create` of network `id` makes one (random relay room and tokens). The
 * first test accepts one made by the command itself; the others, about what accept does with an
 * invite, build it here and save a process each.
 */
function inviteOf(id: string, rooms: string): string {
  const random = () => randomBytes(32).toString('base64url');
  return encodeInvite({
    v: 1,
    relay_url: 'ws://127.0.0.1:9/v1/relay',
    room: random(),
    relay_token: random(),
    pairing_token: random(),
    pairing_id: `pair-${id}`,
    network_id: id,
    network_name: id,
    shared_rooms: rooms.split(','),
    exp: new Date(Date.now() + 3_600_000).toISOString(),
  });
}

t(
  'a private room declared in svc.yaml is refused without --allow-private, nothing written; with it the pairing is written',
  async ({ dir }) => {
    const home = await init(dir, 'home');
    const away = await init(dir, 'away');
    edit(away, (c) => c.rooms.push({ id: 'ops', name: 'Ops', visibility: 'private', write_policy: 'members', members: ['alpha'] }));
    const code = await invite(home, 'ops,lab');
    const before = readFileSync(away, 'utf8');
    const refused = await cli(['invite', 'accept', code, '--config', away]);
    assert.is(refused.code, 1);
    assert.match(refused.stderr, /invite from home \(home\) shares 2 rooms:/);
    assert.match(refused.stderr, /ops: existing PRIVATE room/);
    assert.match(refused.stderr, /lab: new room/);
    assert.match(refused.stderr, /refusing to share ops .*pass --allow-private ops/);
    assert.is(readFileSync(away, 'utf8'), before);

    const wrong = await cli(['invite', 'accept', code, '--config', away, '--allow-private', 'nope']);
    assert.is(wrong.code, 2);
    assert.match(wrong.stderr, /--allow-private nope: the invite does not share room nope/);

    const ok = await cli(['invite', 'accept', code, '--config', away, '--allow-private', 'ops']);
    assert.is(ok.code, 0, ok.stderr);
    const c = parse(readFileSync(away, 'utf8'));
    assert.is(c.pairings.length, 1);
    assert.equal(c.rooms.find((r: { id: string }) => r.id === 'ops').federation.pairings, [c.pairings[0].id]);
    assert.is(c.rooms.find((r: { id: string }) => r.id === 'ops').visibility, 'private');
  },
);

t('on a terminal the operator is asked, and only a yes writes the pairing', async ({ dir }) => {
  const away = await init(dir, 'away5');
  edit(away, (c) => c.rooms.push({ id: 'ops', visibility: 'private', members: [] }));
  const code = inviteOf('home5', 'ops');
  const before = readFileSync(away, 'utf8');
  const tty = (): Io & { errors: string[] } => {
    const errors: string[] = [];
    return { out: () => {}, err: (l) => errors.push(l), color: new Chalk({ level: 0 }), isTTY: true, env: {}, errors };
  };
  const asked: string[] = [];
  const no = tty();
  assert.is(
    await inviteAccept(no, code, { config: away }, async (q) => {
      asked.push(q);
      return false;
    }),
    1,
  );
  assert.equal(asked, ['Share ops with home5 (home5)?']);
  assert.is(readFileSync(away, 'utf8'), before);
  const yes = tty();
  assert.is(await inviteAccept(yes, code, { config: away }, async () => true), 0, yes.errors.join('\n'));
  assert.is(parse(readFileSync(away, 'utf8')).pairings.length, 1);
});

t('a private room created through the API is found by asking the running server with the operator token', async ({ running }) => {
  const away = running.config;
  const created = await running.s.post('/v1/rooms', { id: 'secret', visibility: 'private' }, running.operator);
  assert.ok(created.status < 300, created.text);
  const code = inviteOf('home2', 'secret');
  const before = readFileSync(away, 'utf8');
  const refused = await cli(['invite', 'accept', code, '--config', away]);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /secret: existing PRIVATE room/);
  assert.is(readFileSync(away, 'utf8'), before);
  const ok = await cli(['invite', 'accept', code, '--config', away, '--allow-private', 'secret']);
  assert.is(ok.code, 0, ok.stderr);
  assert.is(parse(readFileSync(away, 'utf8')).pairings.length, 1);
});

t('an invite whose network_name holds escape sequences or U+202E is refused and nothing of it is printed or written', async ({ dir }) => {
  const away = await init(dir, 'away3');
  const before = readFileSync(away, 'utf8');
  const evil = (name: string) =>
    encodeInvite({
      v: 1,
      relay_url: 'ws://127.0.0.1:9/v1/relay',
      room: 'r'.repeat(32),
      relay_token: 't'.repeat(43),
      pairing_token: 'p'.repeat(43),
      pairing_id: 'pair-evil',
      network_id: 'evil',
      network_name: name,
      shared_rooms: [],
      exp: new Date(Date.now() + 3_600_000).toISOString(),
    });
  for (const [name, points] of [
    ['\x1b[2J\x1b[HPaired with Bank', /U\+001B/],
    ['gro\u202Epu\u2066o\u200B', /U\+202E, U\+2066, U\+200B/],
  ] as const) {
    const r = await cli(['invite', 'accept', evil(name), '--config', away]);
    assert.is(r.code, 1);
    assert.match(r.stderr, /network_name holds control or invisible formatting characters/);
    assert.match(r.stderr, points);
    assert.not.match(r.stdout + r.stderr, UNSAFE);
    assert.is(readFileSync(away, 'utf8'), before);
  }
});

t('an invite whose relay room or tokens hold anything but base64url-like text is refused', async ({ dir }) => {
  const away = await init(dir, 'away4');
  const before = readFileSync(away, 'utf8');
  const code = encodeInvite({
    v: 1,
    relay_url: 'ws://127.0.0.1:9/v1/relay',
    room: 'room\x1b]0;title\x07',
    relay_token: 't'.repeat(43),
    pairing_token: 'p'.repeat(43),
    pairing_id: 'pair-evil2',
    network_id: 'evil',
    network_name: 'Evil',
    shared_rooms: [],
    exp: new Date(Date.now() + 3_600_000).toISOString(),
  });
  const r = await cli(['invite', 'accept', code, '--config', away]);
  assert.is(r.code, 1);
  assert.match(r.stderr, /the invite room must be 1-256 characters/);
  assert.not.match(r.stdout + r.stderr, UNSAFE);
  assert.is(readFileSync(away, 'utf8'), before);
});

t('names from the server reach the terminal without escapes or bidi characters; --json keeps them as \\u escapes', async ({ running }) => {
  const { s, operator } = running;
  const name = 'ops\u202Etxt.exe\x1b[31m\u2066\u200B';
  const created = await s.post('/v1/rooms', { id: 'trick', name }, operator);
  assert.ok(created.status < 300, created.text);
  const r = await cli(['rooms', 'get', 'trick', '--url', s.url, '--token', operator]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /ops\?txt\.exe\?\[31m\?\?/);
  assert.not.match(r.stdout, UNSAFE);
  const j = await cli(['rooms', 'get', 'trick', '--url', s.url, '--token', operator, '--json']);
  assert.not.match(j.stdout, UNSAFE);
  assert.match(j.stdout, /\\u202e/);
  assert.is(JSON.parse(j.stdout).name, name);
});

t.run();

const k = suite<{ dir: string }>('svc invite accept knows, with the server stopped or running, on every backend');
k.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-invite-knows-'));
});
k.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

async function initIn(dir: string, id: string): Promise<string> {
  return initConfig(dir, id, '127.0.0.1:0');
}

k(
  'sqlite before the first checkpoint (journal only) and after it: a private room is found with the server stopped, the store left as it was',
  async ({ dir }) => {
    const away = await initIn(dir, 'k-away');
    const folder = path.dirname(away);
    const s = await startServer({ dir: folder, keepConfig: true });
    try {
      await createRooms(s, away, [{ id: 'vault', visibility: 'private' }, { id: 'lobby' }]);
      await s.kill9();
      assert.not.ok(existsSync(path.join(folder, '.svc', 'svc.db')), 'no checkpoint has written svc.db yet');
      const code = inviteOf('k-home', 'vault,lobby,fresh');
      const before = readFileSync(away, 'utf8');
      const early = await cli(['invite', 'accept', code, '--config', away]);
      assert.is(early.code, 1);
      assert.match(early.stderr, /vault: existing PRIVATE room/);
      assert.match(early.stderr, /lobby: existing public room/);
      assert.match(early.stderr, /fresh: new room/);
      assert.is(readFileSync(away, 'utf8'), before);
      assert.not.ok(existsSync(path.join(folder, '.svc', 'svc.db')), 'the read-only look wrote no database');

      // A clean stop checkpoints: now svc.db holds the rooms.
      await s.restart();
      await s.stop();
      assert.ok(existsSync(path.join(folder, '.svc', 'svc.db')));
      const store = snapshot(path.join(folder, '.svc'));
      const late = await cli(['invite', 'accept', code, '--config', away]);
      assert.is(late.code, 1);
      assert.match(late.stderr, /vault: existing PRIVATE room/);
      assert.match(late.stderr, /fresh: new room/);
      assert.is(readFileSync(away, 'utf8'), before);
      assert.equal(snapshot(path.join(folder, '.svc')), store, 'the read-only look left the store files as they were');
    } finally {
      await s.dispose();
    }
  },
);

k('a store that cannot be read with no server running stays unknown, and the message says which of the two failed', async ({ dir }) => {
  const away = await initIn(dir, 'k-away2');
  mkdirSync(path.join(path.dirname(away), '.svc'), { recursive: true });
  writeFileSync(
    path.join(path.dirname(away), '.svc', 'svc.db'),
    'this is not a database, but long enough to have a header of one hundred bytes......................',
  );
  const code = inviteOf('k-home2', 'maybe');
  const r = await cli(['invite', 'accept', code, '--config', away]);
  assert.is(r.code, 1);
  assert.match(
    r.stderr,
    /maybe: not declared in the config, and no server of this config is running \(no runtime file\), and the store .*svc\.db could not be read \(.+\).*: it may be an existing private room/,
  );
});

k('Postgres: a schema no server ever used holds no room, so the accept goes through with the server stopped', async ({ dir }) => {
  const pg = await freshSchema();
  try {
    const away = await initIn(dir, 'pg-away0');
    edit(away, (c) => (c.store = { backend: 'postgres', url: pg.url, schema: pg.schema }));
    const r = await cli(['invite', 'accept', inviteOf('pg-home0', 'fresh'), '--config', away]);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /fresh: new room/);
  } finally {
    await pg.drop();
  }
});

k(
  'Postgres: a private room is found with the server running (asked) and stopped (read-only store), and a new one is new',
  async ({ dir }) => {
    const pg = await freshSchema();
    const away = await initIn(dir, 'pg-away');
    const folder = path.dirname(away);
    edit(away, (c) => (c.store = { backend: 'postgres', url: pg.url, schema: pg.schema }));
    const s = await startApp({ dir: folder, keepConfig: true });
    try {
      await createRooms(s, away, [{ id: 'vault', visibility: 'private' }]);
      const code = inviteOf('pg-home', 'vault,fresh');
      const before = readFileSync(away, 'utf8');
      const running = await cli(['invite', 'accept', code, '--config', away]);
      assert.is(running.code, 1);
      assert.match(running.stderr, /vault: existing PRIVATE room/);
      assert.match(running.stderr, /fresh: new room/);
      await s.stop();
      const stopped = await cli(['invite', 'accept', code, '--config', away]);
      assert.is(stopped.code, 1);
      assert.match(stopped.stderr, /vault: existing PRIVATE room/);
      assert.match(stopped.stderr, /fresh: new room/);
      assert.is(readFileSync(away, 'utf8'), before);
      const ok = await cli(['invite', 'accept', code, '--config', away, '--allow-private', 'vault']);
      assert.is(ok.code, 0, ok.stderr);
    } finally {
      await s.dispose();
      await pg.drop();
    }
  },
);

k.run();
