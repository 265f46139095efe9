// svc invite create / accept: one code links two networks. Both write the pairing, its pair-scoped
// token and the shared rooms (federation allowing the pairing) into the local svc.yaml; a running
// server reloads the file by itself. Room membership is left to the operators: an invite federates
// rooms but adds no member to them (docs/pairing.md, "Grant membership on each side").

import { randomBytes } from 'node:crypto';
import { isScalar, isSeq, type Document } from 'yaml';
import { appendTo, editConfigFile, indexById } from '../../../config/edit.js';
import { envValue } from '../../../config/env.js';
import { ConfigError, loadConfig } from '../../../config/load.js';
import { isId, secret } from '../../../protocol/ids.js';
import {
  DEFAULT_INVITE_TTL_MS,
  encodeInvite,
  InviteError,
  INVITE_VERSION,
  normalizeRelayUrl,
  parseDuration,
  validateInvite,
  type Invite,
} from '../../../pairing/invite.js';
import type { Warning } from '../../../protocol/types.js';
import { EXIT, type Io } from '../../io.js';
import { configPath } from '../../target.js';
import { hasUnsafeChars, oneLine } from '../../format.js';
import { describeRoom, lookUpRooms, roomsNeedingConsent } from './rooms.js';

export interface InviteCreateOptions {
  config?: string;
  relayUrl?: string;
  /** Names the environment variable holding the relay's access token (default SVC_RELAY_ACCESS_TOKEN when set). */
  relayAccessTokenEnv?: string;
  rooms?: string;
  expires?: string;
  json?: boolean;
}

export interface InviteAcceptOptions {
  config?: string;
  json?: boolean;
  /** Existing private rooms the operator agrees to share (repeatable, or comma-separated). */
  allowPrivate?: string[];
}

/** Asks the operator on a TTY; tests inject their own. */
export type Confirm = (message: string) => Promise<boolean>;

const inquirerConfirm: Confirm = async (message) => (await import('@inquirer/prompts')).confirm({ message, default: false });

const NAME_MAX = 128;

class UsageError extends Error {}

/** Writes the pairing, its pair token and the shared rooms' federation into the document. */
function wirePairing(doc: Document, pairing: Record<string, unknown>, token: string, rooms: readonly string[]): void {
  const id = pairing.id as string;
  if (indexById(doc, ['pairings'], id) >= 0)
    throw new ConfigError(`pairings: a pairing with id ${id} already exists (was this invite accepted before?)`);
  if (indexById(doc, ['auth', 'tokens'], id) >= 0)
    throw new ConfigError(`auth.tokens: a token with id ${id} already exists; it would collide with the pairing's credential`);
  appendTo(doc, ['auth', 'tokens'], { id, value: token, scopes: ['pair'] });
  appendTo(doc, ['pairings'], pairing);
  for (const room of rooms) {
    const i = indexById(doc, ['rooms'], room);
    if (i < 0) {
      appendTo(doc, ['rooms'], { id: room, federation: { pairings: [id] } });
      continue;
    }
    const list = doc.getIn(['rooms', i, 'federation', 'pairings'], true);
    const has = isSeq(list) && list.items.some((it) => (isScalar(it) ? it.value : it) === id);
    if (!has) appendTo(doc, ['rooms', i, 'federation', 'pairings'], id);
  }
}

function parseRooms(text: string | undefined): string[] {
  if (!text) return [];
  const rooms = [
    ...new Set(
      text
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean),
    ),
  ];
  for (const r of rooms) if (!isId(r)) throw new UsageError(`--rooms: ${JSON.stringify(r)} is not a room id (letters, digits, . _ -)`);
  return rooms;
}

function fail(io: Io, err: unknown, what: string): number {
  if (err instanceof UsageError) {
    io.err(`svc invite ${what}: ${err.message}`);
    return EXIT.usage;
  }
  if (err instanceof InviteError || err instanceof ConfigError) {
    io.err(`svc invite ${what}: ${err.message}`);
    return EXIT.failure;
  }
  throw err;
}

/** The pairing's relay block; the access token only when the relay requires one. */
function relayBlock(inv: Invite): Record<string, string> {
  return {
    url: inv.relay_url,
    room: inv.room,
    token: inv.relay_token,
    ...(inv.relay_access_token ? { access_token: inv.relay_access_token } : {}),
  };
}

/** svc invite create: generates the secrets, writes this side and prints the code. */
export async function inviteCreate(io: Io, opts: InviteCreateOptions): Promise<number> {
  const file = configPath(opts, io.env).file;
  try {
    const relay = opts.relayUrl ?? envValue(io.env, 'SVC_RELAY_URL');
    if (!relay)
      throw new UsageError(
        '--relay-url is required (or env SVC_RELAY_URL): the ws:// or wss:// address of a relay both networks can reach (see svc relay)',
      );
    let relayUrl: string;
    try {
      relayUrl = normalizeRelayUrl(relay);
    } catch (err) {
      throw new UsageError(`--relay-url: ${(err as Error).message}`);
    }
    const accessName =
      opts.relayAccessTokenEnv ?? (envValue(io.env, 'SVC_RELAY_ACCESS_TOKEN') !== undefined ? 'SVC_RELAY_ACCESS_TOKEN' : undefined);
    const accessToken = accessName === undefined ? undefined : envValue(io.env, accessName);
    if (accessName !== undefined && accessToken === undefined)
      throw new UsageError(`--relay-access-token-env: environment variable ${accessName} is not set`);
    const rooms = parseRooms(opts.rooms);
    let ttl = DEFAULT_INVITE_TTL_MS;
    if (opts.expires !== undefined) {
      try {
        ttl = parseDuration(opts.expires);
      } catch (err) {
        throw new UsageError(`--expires: ${(err as Error).message}`);
      }
    }
    const loaded = loadConfig(file, io.env, 'client');
    if (!opts.json) sayHookSecrets(io, loaded.warnings);
    const current = loaded.config;
    const invite: Invite = {
      v: INVITE_VERSION,
      relay_url: relayUrl,
      room: secret(24),
      relay_token: secret(32),
      ...(accessToken ? { relay_access_token: accessToken } : {}),
      pairing_token: secret(32),
      pairing_id: `pair-${randomBytes(8).toString('hex')}`,
      network_id: current.network.id,
      network_name: current.network.name,
      shared_rooms: rooms,
      exp: new Date(Date.now() + ttl).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    // The inviting side does not know the peer's network id yet: it is learned when the peer first answers.
    editConfigFile(
      file,
      (doc) =>
        wirePairing(doc, { id: invite.pairing_id, token: invite.pairing_token, relay: relayBlock(invite) }, invite.pairing_token, rooms),
      io.env,
    );
    const code = encodeInvite(invite);
    if (opts.json) {
      io.out(
        JSON.stringify({
          pairing_id: invite.pairing_id,
          network_id: invite.network_id,
          shared_rooms: rooms,
          expires_at: invite.exp,
          config: file,
          code,
        }),
      );
      return EXIT.ok;
    }
    io.err(`invite for pairing ${invite.pairing_id} written to ${file}; a running server picks it up by itself`);
    io.err(`shared rooms: ${rooms.length ? rooms.join(', ') : '(none; add --rooms to share some)'}; expires ${invite.exp}`);
    io.err(
      'the code below is a secret (it holds the pairing and relay tokens): send it privately; the other operator runs: svc invite accept CODE',
    );
    io.out(code);
    return EXIT.ok;
  } catch (err) {
    return fail(io, err, 'create');
  }
}

/** The invite's display name, refused when it could disguise itself on a terminal or in svc.yaml. */
function checkedName(name: string): string {
  if (hasUnsafeChars(name)) {
    const bad = [...name]
      .filter((ch) => hasUnsafeChars(ch))
      .map((ch) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
    throw new InviteError(
      'malformed',
      `the invite network_name holds control or invisible formatting characters (${[...new Set(bad)].slice(0, 5).join(', ')}); refusing it: ask the inviter for a new invite`,
    );
  }
  if (name.trim() === '' || name.length > NAME_MAX)
    throw new InviteError('malformed', `the invite network_name must be 1 to ${NAME_MAX} characters`);
  return name;
}

// Secrets and the relay room name are generated base64url text; anything else is a forged code.
const SECRET_TEXT = /^[A-Za-z0-9._~-]{1,256}$/;

/** The invite's other free-text fields, held to what `svc invite create` writes. */
function checkSecrets(inv: Invite): void {
  for (const key of ['room', 'relay_token', 'pairing_token'] as const) {
    if (!SECRET_TEXT.test(inv[key]))
      throw new InviteError(
        'malformed',
        `the invite ${key} must be 1-256 characters of A-Z a-z 0-9 . _ ~ -; ask the inviter for a new invite`,
      );
  }
}

/** svc invite accept CODE: validates the code, shows the rooms it shares and writes the mirror pairing. */
export async function inviteAccept(io: Io, code: string, opts: InviteAcceptOptions, confirm: Confirm = inquirerConfirm): Promise<number> {
  const file = configPath(opts, io.env).file;
  try {
    const loaded = loadConfig(file, io.env, 'client');
    if (!opts.json) sayHookSecrets(io, loaded.warnings);
    const current = loaded.config;
    const inv = validateInvite(code, { network_id: current.network.id });
    const name = checkedName(inv.network_name);
    checkSecrets(inv);
    // Before asking the server anything: the same invite twice is refused as wirePairing would.
    if (current.pairings.some((p) => p.id === inv.pairing_id))
      throw new ConfigError(`pairings: a pairing with id ${inv.pairing_id} already exists (was this invite accepted before?)`);
    const allowed = new Set(parseRooms((opts.allowPrivate ?? []).join(',')));
    for (const r of allowed)
      if (!inv.shared_rooms.includes(r))
        throw new UsageError(
          `--allow-private ${r}: the invite does not share room ${r} (it shares: ${inv.shared_rooms.join(', ') || 'none'})`,
        );
    const rooms = await lookUpRooms(inv.shared_rooms, current, file, io.env);
    if (!opts.json) {
      io.err(
        `invite from ${oneLine(name)} (${inv.network_id}) shares ${rooms.length === 0 ? 'no rooms' : `${rooms.length} room${rooms.length === 1 ? '' : 's'}:`}`,
      );
      for (const r of rooms) io.err(`  ${describeRoom(r)}`);
    }
    const needing = roomsNeedingConsent(rooms, allowed);
    if (needing.length > 0) {
      const ids = needing.map((r) => r.id).join(',');
      const agreed =
        io.isTTY && !opts.json ? await confirm(`Share ${ids} with ${oneLine(name)} (${inv.network_id})?`).catch(() => false) : false;
      if (!agreed) {
        io.err(
          `svc invite accept: refusing to share ${ids} without your explicit consent (possibly private; nothing written): pass --allow-private ${ids} to share ${needing.length === 1 ? 'it' : 'them'}${io.isTTY ? '' : ', or run it on a terminal to be asked'}`,
        );
        return EXIT.failure;
      }
    }
    editConfigFile(
      file,
      (doc) =>
        wirePairing(
          doc,
          {
            id: inv.pairing_id,
            remote_network_id: inv.network_id,
            remote_network_name: name,
            token: inv.pairing_token,
            // The inviter's network id is in the invite: this side's credential is bound to it.
            bound: true,
            relay: relayBlock(inv),
          },
          inv.pairing_token,
          inv.shared_rooms,
        ),
      io.env,
    );
    if (opts.json) {
      io.out(
        JSON.stringify({
          pairing_id: inv.pairing_id,
          remote_network_id: inv.network_id,
          remote_network_name: name,
          shared_rooms: inv.shared_rooms,
          config: file,
        }),
      );
      return EXIT.ok;
    }
    io.out(`paired with ${oneLine(name)} (${inv.network_id}) as pairing ${inv.pairing_id}; written to ${file}`);
    io.out(
      `shared rooms: ${inv.shared_rooms.length ? inv.shared_rooms.join(', ') : '(none)'} (federation allows the pairing; a running server picks it up by itself)`,
    );
    if (inv.shared_rooms.length > 0) {
      io.out(
        `next: membership is not granted by the invite: add ${inv.network_id}:<agent_id> to the members of ${inv.shared_rooms[0]} (svc rooms members ${inv.shared_rooms[0]} --add ${inv.network_id}:<agent_id>, or rooms[].members in svc.yaml)`,
      );
    }
    return EXIT.ok;
  } catch (err) {
    return fail(io, err, 'accept');
  }
}

/** Hook secrets are the serving process's: a shell without one is told which, and the command goes on. */
function sayHookSecrets(io: Io, warnings: readonly Warning[]): void {
  for (const w of warnings) if (w.code === 'hook_secret_unset') io.err(`warning: ${w.message} (${w.action})`);
}
