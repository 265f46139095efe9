import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Chalk } from 'chalk';
import {
  decodeInvite,
  encodeInvite,
  InviteError,
  normalizeRelayUrl,
  parseDuration,
  validateInvite,
  type Invite,
} from '../../src/pairing/invite.js';
import { inviteAccept, inviteCreate } from '../../src/cli/commands/invite/run.js';
import { appendTo, editConfigFile } from '../../src/config/edit.js';
import { renderInitConfig, writeConfigFile } from '../../src/config/init.js';
import { loadConfig } from '../../src/config/load.js';
import type { Io } from '../../src/cli/io.js';

const INVITE: Invite = {
  v: 1,
  relay_url: 'ws://127.0.0.1:8788/v1/relay',
  room: 'room-0123',
  relay_token: 'rt-secret',
  pairing_token: 'pt-secret',
  pairing_id: 'pair-1',
  network_id: 'home',
  network_name: 'Home',
  shared_rooms: ['general'],
  exp: '2030-01-01T00:00:00Z',
};

const CODE =
  'service-invite:eyJ2IjoxLCJyZWxheV91cmwiOiJ3czovLzEyNy4wLjAuMTo4Nzg4L3YxL3JlbGF5Iiwicm9vbSI6InJvb20tMDEyMyIsInJlbGF5X3Rva2VuIjoicnQtc2VjcmV0IiwicGFpcmluZ190b2tlbiI6InB0LXNlY3JldCIsInBhaXJpbmdfaWQiOiJwYWlyLTEiLCJuZXR3b3JrX2lkIjoiaG9tZSIsIm5ldHdvcmtfbmFtZSI6IkhvbWUiLCJzaGFyZWRfcm9vbXMiOlsiZ2VuZXJhbCJdLCJleHAiOiIyMDMwLTAxLTAxVDAwOjAwOjAwWiJ9';

const code = (o: Record<string, unknown>) => `service-invite:${Buffer.from(JSON.stringify(o)).toString('base64url')}`;

function refusal(fn: () => unknown): { reason: string; message: string } {
  try {
    fn();
  } catch (err) {
    assert.instance(err, InviteError);
    return { reason: (err as InviteError).reason, message: (err as Error).message };
  }
  throw new Error('expected the invite to be refused');
}

const t = suite('invite codes');

t('an invite encodes to the prefix and base64url JSON with a fixed key order', () => {
  assert.is(encodeInvite(INVITE), CODE);
  assert.is(encodeInvite({ ...INVITE, exp: INVITE.exp, v: 1 }), CODE);
});

t('a code decodes back to the same invite, surrounding whitespace ignored', () => {
  assert.equal(decodeInvite(CODE), INVITE);
  assert.equal(decodeInvite(`  ${CODE}\n`), INVITE);
});

t('a valid, unexpired invite from another network is accepted', () => {
  assert.equal(validateInvite(CODE, { network_id: 'away', now: new Date('2029-12-31T23:59:59Z') }), INVITE);
});

t('an expired invite is refused with its expiry and who to ask', () => {
  const r = refusal(() => validateInvite(CODE, { network_id: 'away', now: new Date('2030-01-01T00:00:00Z') }));
  assert.is(r.reason, 'expired');
  assert.is(r.message, 'the invite expired at 2030-01-01T00:00:00.000Z; ask Home (home) for a new one');
});

t('an invite from this very network is refused', () => {
  const r = refusal(() => validateInvite(CODE, { network_id: 'home', now: new Date('2029-01-01T00:00:00Z') }));
  assert.is(r.reason, 'own_network');
  assert.match(r.message, /comes from network home, which is this network's own id/);
});

t('only version 1 is accepted', () => {
  for (const v of [2, 0, '1', undefined]) {
    const r = refusal(() => decodeInvite(code({ ...INVITE, v })));
    assert.is(r.reason, 'unsupported_version');
  }
  assert.is(
    refusal(() => decodeInvite(code({ ...INVITE, v: 2 }))).message,
    'invite version 2 is not supported (this svc accepts v 1); ask for a new invite from a matching svc',
  );
});

t('the relay URL must be ws:// or wss://', () => {
  for (const url of ['http://relay.example/v1/relay', 'https://relay.example', 'relay.example:8788', 'ftp://x']) {
    assert.is(refusal(() => decodeInvite(code({ ...INVITE, relay_url: url }))).reason, 'bad_relay_url', url);
  }
  assert.is(
    refusal(() => decodeInvite(code({ ...INVITE, relay_url: 'http://relay.example/v1/relay' }))).message,
    'relay URL "http://relay.example/v1/relay" must use ws:// or wss://, not http://',
  );
  assert.equal(decodeInvite(code({ ...INVITE, relay_url: 'wss://relay.example/v1/relay' })).relay_url, 'wss://relay.example/v1/relay');
});

t('damaged codes say what is wrong', () => {
  assert.is(refusal(() => decodeInvite('hello')).message, 'not an invite code: it must start with "service-invite:"');
  assert.is(refusal(() => decodeInvite('service-invite:***')).reason, 'malformed');
  assert.is(refusal(() => decodeInvite(`service-invite:${Buffer.from('not json').toString('base64url')}`)).reason, 'malformed');
  assert.is(
    refusal(() => decodeInvite(code({ ...INVITE, pairing_token: undefined }))).message,
    'the invite has no pairing_token; ask for a new invite',
  );
  assert.is(refusal(() => decodeInvite(code({ ...INVITE, pairing_id: 'a/b' }))).reason, 'malformed');
  assert.is(refusal(() => decodeInvite(code({ ...INVITE, shared_rooms: ['ok', 'no spaces'] }))).reason, 'malformed');
  assert.is(refusal(() => decodeInvite(code({ ...INVITE, exp: 'tomorrow' }))).reason, 'malformed');
});

t('durations read as the CLI flags are written', () => {
  assert.is(parseDuration('7d'), 604_800_000);
  assert.is(parseDuration('12h'), 43_200_000);
  assert.is(parseDuration('30m'), 1_800_000);
  assert.is(parseDuration('45s'), 45_000);
  assert.is(parseDuration('250'), 250);
  assert.throws(() => parseDuration('0d'), /positive/);
  assert.throws(() => parseDuration('soon'), /not a duration/);
});

t('a bare relay address gains the relay path', () => {
  assert.is(normalizeRelayUrl('ws://127.0.0.1:8788'), 'ws://127.0.0.1:8788/v1/relay');
  assert.is(normalizeRelayUrl('wss://relay.example/custom/path'), 'wss://relay.example/custom/path');
  assert.throws(() => normalizeRelayUrl('http://127.0.0.1:8788'), /ws:\/\/ or wss:\/\//);
});

t.run();

const e = suite<{ dir: string }>('invite create and accept write the config');
e.before((ctx) => {
  ctx.dir = mkdtempSync(path.join(tmpdir(), 'svc-invite-'));
});
e.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

function io(): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { out: (l) => lines.push(l), err: (l) => errors.push(l), color: new Chalk({ level: 0 }), isTTY: false, env: {}, lines, errors };
}

function initConfig(dir: string, id: string): string {
  const file = path.join(dir, `${id}.yaml`);
  writeConfigFile(file, renderInitConfig({ network_id: id, name: id.toUpperCase() }), { force: true });
  return file;
}

e('the inviting side gets a pair token, an unbound pairing and a federated room; comments stay', async ({ dir }) => {
  const file = initConfig(dir, 'home');
  const out = io();
  assert.is(
    await inviteCreate(out, { config: file, relayUrl: 'ws://127.0.0.1:8788', rooms: 'general,lab', expires: '1h' }),
    0,
    out.errors.join('\n'),
  );
  const inv = decodeInvite(out.lines[0]!);
  assert.equal(
    [inv.network_id, inv.network_name, inv.relay_url, inv.shared_rooms],
    ['home', 'HOME', 'ws://127.0.0.1:8788/v1/relay', ['general', 'lab']],
  );
  assert.ok(Date.parse(inv.exp) - Date.now() <= 3_600_000 && Date.parse(inv.exp) - Date.now() > 3_500_000);
  assert.ok(inv.pairing_token.length >= 40 && inv.relay_token.length >= 40 && inv.room.length >= 32);
  const text = readFileSync(file, 'utf8');
  assert.match(text, /# svc configuration, written by `svc init`/);
  assert.is(statSync(file).mode & 0o777, 0o600);
  const cfg = loadConfig(file, {}).config;
  assert.equal(
    cfg.auth.tokens.find((t) => t.id === inv.pairing_id),
    { id: inv.pairing_id, value: inv.pairing_token, scopes: ['pair'] },
  );
  assert.equal(cfg.pairings, [
    { id: inv.pairing_id, token: inv.pairing_token, relay: { url: inv.relay_url, room: inv.room, token: inv.relay_token } },
  ]);
  assert.equal(
    cfg.rooms.map((r) => [r.id, r.federation?.pairings]),
    [
      ['general', [inv.pairing_id]],
      ['lab', [inv.pairing_id]],
    ],
  );
  // general keeps what it declared: membership is never granted by an invite.
  assert.equal(cfg.rooms[0]!.members, []);
});

e('the accepting side mirrors it, bound to the inviter, and refuses the same invite twice', async ({ dir }) => {
  const home = initConfig(dir, 'home2');
  const away = initConfig(dir, 'away');
  const a = io();
  await inviteCreate(a, { config: home, relayUrl: 'wss://relay.example/v1/relay', rooms: 'lab' });
  const code = a.lines[0]!;
  const inv = decodeInvite(code);
  const b = io();
  assert.is(await inviteAccept(b, code, { config: away }), 0, b.errors.join('\n'));
  assert.match(b.lines[0]!, new RegExp(`^paired with HOME2 \\(home2\\) as pairing ${inv.pairing_id}`));
  const cfg = loadConfig(away, {}).config;
  assert.equal(cfg.pairings, [
    {
      id: inv.pairing_id,
      remote_network_id: 'home2',
      remote_network_name: 'HOME2',
      token: inv.pairing_token,
      bound: true,
      relay: { url: 'wss://relay.example/v1/relay', room: inv.room, token: inv.relay_token },
    },
  ]);
  assert.equal(cfg.auth.tokens.find((t) => t.id === inv.pairing_id)?.scopes, ['pair']);
  assert.equal(
    cfg.rooms.find((r) => r.id === 'lab'),
    { id: 'lab', federation: { pairings: [inv.pairing_id] } },
  );
  const before = readFileSync(away, 'utf8');
  const again = io();
  assert.is(await inviteAccept(again, code, { config: away }), 1);
  assert.match(again.errors[0]!, /already exists/);
  assert.is(readFileSync(away, 'utf8'), before);
});

e('usage mistakes exit 2 and change nothing', async ({ dir }) => {
  const file = initConfig(dir, 'usage');
  const before = readFileSync(file, 'utf8');
  for (const [opts, message] of [
    [{}, /--relay-url is required/],
    [{ relayUrl: 'http://relay.example' }, /must use ws:\/\/ or wss:\/\//],
    [{ relayUrl: 'ws://r', rooms: 'ok,not ok' }, /--rooms: "not ok" is not a room id/],
    [{ relayUrl: 'ws://r', expires: 'soon' }, /--expires: "soon" is not a duration/],
  ] as const) {
    const x = io();
    assert.is(await inviteCreate(x, { config: file, ...opts }), 2);
    assert.match(x.errors[0]!, message);
  }
  assert.is(readFileSync(file, 'utf8'), before);
});

e('a config edit that would make the file invalid is refused and nothing is written', ({ dir }) => {
  const file = initConfig(dir, 'edit');
  const before = readFileSync(file, 'utf8');
  assert.throws(
    () => editConfigFile(file, (doc) => appendTo(doc, ['auth', 'tokens'], { id: 'x', value: 'v', scopes: ['root'] }), {}),
    /auth\.tokens\[0\]\.scopes\[0\]: must be one of/,
  );
  assert.is(readFileSync(file, 'utf8'), before);
  editConfigFile(file, (doc) => appendTo(doc, ['pairings'], { id: 'p', remote_base_url: 'http://x', token: 't' }), {});
  assert.match(readFileSync(file, 'utf8'), /pairings:\n {2}# added by `svc invite create` \/ `svc invite accept`\n {2}- id: p\n/);
});

e.run();
