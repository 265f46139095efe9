// `svc invite accept` as processes: it shows the rooms it will share, refuses to federate an
// existing private room without explicit consent (--allow-private), and refuses invite names that
// hold terminal escapes or bidi/invisible characters. Everything the CLI prints is free of them.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, stringify } from 'yaml';
import { oneLine } from '../src/cli/format.js';
import { terminalSafe } from '../src/cli/io.js';
import { roomsNeedingConsent } from '../src/cli/commands/invite-rooms.js';
import { encodeInvite } from '../src/pairing/invite.js';
import { inviteAccept } from '../src/cli/commands/invite.js';
import type { Io } from '../src/cli/io.js';
import { Chalk } from 'chalk';
import { cli, freePort } from './helpers/cli.js';
import { startServer, TOKENS } from './helpers/server.js';

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
  assert.equal(roomsNeedingConsent(rooms, new Set()).map((r) => r.id), ['c', 'd']);
  assert.equal(roomsNeedingConsent(rooms, new Set(['c'])).map((r) => r.id), ['d']);
});
u.run();

const t = suite<{ dir: string }>('svc invite accept never shares a private room silently');
t.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-invite-safety-'));
});
t.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

async function init(dir: string, id: string): Promise<string> {
  const d = path.join(dir, id);
  const r = await cli(['init', '--yes', '--dir', d, '--network-id', id]);
  assert.is(r.code, 0, r.stderr);
  const file = path.join(d, 'svc.yaml');
  // Not the shared default port: whatever answers there is not this config's server.
  const port = await freePort();
  edit(file, (c) => (c.server.listen_addr = `127.0.0.1:${port}`));
  return file;
}

function edit(file: string, change: (c: Record<string, any>) => void): void {
  const c = parse(readFileSync(file, 'utf8'));
  change(c);
  writeFileSync(file, stringify(c), { mode: 0o600 });
}

async function invite(home: string, rooms: string): Promise<string> {
  const r = await cli(['invite', 'create', '--config', home, '--relay-url', 'ws://127.0.0.1:9/v1/relay', '--rooms', rooms]);
  assert.is(r.code, 0, r.stderr);
  return r.stdout.trim();
}

t('a private room declared in svc.yaml is refused without --allow-private, nothing written; with it the pairing is written', async ({ dir }) => {
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
});

t('on a terminal the operator is asked, and only a yes writes the pairing', async ({ dir }) => {
  const home = await init(dir, 'home5');
  const away = await init(dir, 'away5');
  edit(away, (c) => c.rooms.push({ id: 'ops', visibility: 'private', members: [] }));
  const code = await invite(home, 'ops');
  const before = readFileSync(away, 'utf8');
  const tty = (): Io & { errors: string[] } => {
    const errors: string[] = [];
    return { out: () => {}, err: (l) => errors.push(l), color: new Chalk({ level: 0 }), isTTY: true, env: {}, errors };
  };
  const asked: string[] = [];
  const no = tty();
  assert.is(await inviteAccept(no, code, { config: away }, async (q) => (asked.push(q), false)), 1);
  assert.equal(asked, ['Share ops with home5 (home5)?']);
  assert.is(readFileSync(away, 'utf8'), before);
  const yes = tty();
  assert.is(await inviteAccept(yes, code, { config: away }, async () => true), 0, yes.errors.join('\n'));
  assert.is(parse(readFileSync(away, 'utf8')).pairings.length, 1);
});

t('a private room created through the API is found by asking the running server with the operator token', async ({ dir }) => {
  const home = await init(dir, 'home2');
  const away = await init(dir, 'away2');
  const s = await startServer({ dir: path.dirname(away), keepConfig: true });
  try {
    const created = await cli(['rooms', 'create', 'secret', '--visibility', 'private'], { cwd: path.dirname(away) });
    assert.is(created.code, 0, created.stderr);
    const code = await invite(home, 'secret');
    const before = readFileSync(away, 'utf8');
    const refused = await cli(['invite', 'accept', code, '--config', away]);
    assert.is(refused.code, 1);
    assert.match(refused.stderr, /secret: existing PRIVATE room/);
    assert.is(readFileSync(away, 'utf8'), before);

    // With the server down, an undeclared room of a store that has data cannot be checked: refused too.
    await s.stop();
    const unknown = await cli(['invite', 'accept', code, '--config', away]);
    assert.is(unknown.code, 1);
    assert.match(unknown.stderr, /secret: not declared in the config, and the server at its listen address could not be asked/);
    assert.is(readFileSync(away, 'utf8'), before);

    const ok = await cli(['invite', 'accept', code, '--config', away, '--allow-private', 'secret']);
    assert.is(ok.code, 0, ok.stderr);
  } finally {
    await s.dispose();
  }
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

t('names from the server reach the terminal without escapes or bidi characters; --json keeps them as \\u escapes', async () => {
  const s = await startServer();
  try {
    const name = 'ops\u202Etxt.exe\x1b[31m\u2066\u200B';
    const created = await s.post('/v1/rooms', { id: 'trick', name }, TOKENS.admin.value);
    assert.ok(created.status < 300, created.text);
    const r = await cli(['rooms', 'get', 'trick', '--url', s.url, '--token', TOKENS.admin.value]);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /ops\?txt\.exe\?\[31m\?\?/);
    assert.not.match(r.stdout, UNSAFE);
    const j = await cli(['rooms', 'get', 'trick', '--url', s.url, '--token', TOKENS.admin.value, '--json']);
    assert.not.match(j.stdout, UNSAFE);
    assert.match(j.stdout, /\\u202e/);
    assert.is(JSON.parse(j.stdout).name, name);
  } finally {
    await s.dispose();
  }
});

t.run();
