// Invite codes (the spec, Invite code): `service-invite:` + base64url(JSON). Pure: encode, decode and
// validate, each refusal a sentence an operator can act on. Secrets are generated elsewhere.

import { isId } from '../protocol/ids.js';

export const INVITE_PREFIX = 'service-invite:';
export const INVITE_VERSION = 1;
/** The spec's limits: invites expire 7 days after generation unless told otherwise. */
export const DEFAULT_INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface Invite {
  v: number;
  relay_url: string;
  room: string;
  relay_token: string;
  /** Optional: the relay-wide access token of a relay that requires one (older invites lack it). */
  relay_access_token?: string;
  pairing_token: string;
  pairing_id: string;
  network_id: string;
  network_name: string;
  shared_rooms: string[];
  /** ISO 8601 expiry. */
  exp: string;
}

/** A refused invite; `message` is one readable line. */
export class InviteError extends Error {
  constructor(
    readonly reason: 'malformed' | 'unsupported_version' | 'bad_relay_url' | 'expired' | 'own_network' | 'missing_field',
    message: string,
  ) {
    super(message);
    this.name = 'InviteError';
  }
}

/** The invite code of an invite (key order fixed, so equal invites give equal codes). */
export function encodeInvite(inv: Invite): string {
  const ordered: Invite = {
    v: inv.v,
    relay_url: inv.relay_url,
    room: inv.room,
    relay_token: inv.relay_token,
    ...(inv.relay_access_token ? { relay_access_token: inv.relay_access_token } : {}),
    pairing_token: inv.pairing_token,
    pairing_id: inv.pairing_id,
    network_id: inv.network_id,
    network_name: inv.network_name,
    shared_rooms: inv.shared_rooms,
    exp: inv.exp,
  };
  return INVITE_PREFIX + Buffer.from(JSON.stringify(ordered), 'utf8').toString('base64url');
}

/** Decodes and checks the shape of a code; does not check expiry or the local network (see validateInvite). */
export function decodeInvite(code: string): Invite {
  const text = code.trim();
  if (!text.startsWith(INVITE_PREFIX)) throw new InviteError('malformed', `not an invite code: it must start with "${INVITE_PREFIX}"`);
  const b64 = text.slice(INVITE_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(b64))
    throw new InviteError(
      'malformed',
      'the invite code is damaged: the part after the prefix is not base64url (copy the whole code, on one line)',
    );
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(b64, 'base64url').toString('utf8'));
  } catch {
    throw new InviteError('malformed', 'the invite code is damaged: it does not decode to JSON (copy the whole code, on one line)');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new InviteError('malformed', 'the invite code is damaged: it does not hold a JSON object');
  const o = raw as Record<string, unknown>;
  if (o.v !== INVITE_VERSION) {
    throw new InviteError(
      'unsupported_version',
      `invite version ${JSON.stringify(o.v ?? null)} is not supported (this svc accepts v ${INVITE_VERSION}); ask for a new invite from a matching svc`,
    );
  }
  const str = (k: keyof Invite): string => {
    const v = o[k];
    if (typeof v !== 'string' || v === '') throw new InviteError('missing_field', `the invite has no ${k}; ask for a new invite`);
    return v;
  };
  const rooms = o.shared_rooms ?? [];
  if (!Array.isArray(rooms) || rooms.some((r) => typeof r !== 'string' || !isId(r))) {
    throw new InviteError('malformed', 'the invite shared_rooms must be a list of room ids');
  }
  const inv: Invite = {
    v: INVITE_VERSION,
    relay_url: str('relay_url'),
    room: str('room'),
    relay_token: str('relay_token'),
    ...(typeof o.relay_access_token === 'string' && o.relay_access_token !== '' ? { relay_access_token: o.relay_access_token } : {}),
    pairing_token: str('pairing_token'),
    pairing_id: str('pairing_id'),
    network_id: str('network_id'),
    network_name: typeof o.network_name === 'string' && o.network_name !== '' ? o.network_name : str('network_id'),
    shared_rooms: rooms as string[],
    exp: str('exp'),
  };
  if (!isId(inv.pairing_id))
    throw new InviteError('malformed', `the invite pairing_id ${JSON.stringify(inv.pairing_id)} is not a valid id`);
  if (!isId(inv.network_id))
    throw new InviteError('malformed', `the invite network_id ${JSON.stringify(inv.network_id)} is not a valid network id`);
  if (Number.isNaN(Date.parse(inv.exp))) throw new InviteError('malformed', `the invite exp ${JSON.stringify(inv.exp)} is not a timestamp`);
  checkRelayUrl(inv.relay_url);
  return inv;
}

/** Refuses a relay URL that is not ws:// or wss://. */
export function checkRelayUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InviteError('bad_relay_url', `relay URL ${JSON.stringify(url)} is not a URL (want ws://host:port/v1/relay or wss://...)`);
  }
  if (u.protocol !== 'ws:' && u.protocol !== 'wss:') {
    throw new InviteError(
      'bad_relay_url',
      `relay URL ${JSON.stringify(url)} must use ws:// or wss://, not ${u.protocol.replace(/:$/, '')}://`,
    );
  }
  if (u.username || u.password)
    throw new InviteError('bad_relay_url', 'the relay URL must not carry credentials (the relay token travels separately)');
}

/** Decodes a code and checks it may be accepted here, now. */
export function validateInvite(code: string, local: { network_id: string; now?: Date }): Invite {
  const inv = decodeInvite(code);
  const now = local.now ?? new Date();
  if (Date.parse(inv.exp) <= now.getTime()) {
    throw new InviteError(
      'expired',
      `the invite expired at ${new Date(Date.parse(inv.exp)).toISOString()}; ask ${inv.network_name} (${inv.network_id}) for a new one`,
    );
  }
  if (inv.network_id === local.network_id) {
    throw new InviteError(
      'own_network',
      `the invite comes from network ${inv.network_id}, which is this network's own id; accept it on the other network (or give one of them another network.id)`,
    );
  }
  return inv;
}

/** Parses `7d`, `12h`, `30m`, `45s` or plain milliseconds into milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+)\s*(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) throw new Error(`${JSON.stringify(text)} is not a duration (use e.g. 7d, 12h, 30m, 45s)`);
  const n = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 'ms') as 'ms' | 's' | 'm' | 'h' | 'd'];
  const ms = n * unit;
  if (ms <= 0 || !Number.isSafeInteger(ms)) throw new Error(`${JSON.stringify(text)} must be a positive duration`);
  return ms;
}

/** The relay URL as invites carry it: a bare `ws://host:port` gains the relay path `/v1/relay`. */
export function normalizeRelayUrl(url: string): string {
  checkRelayUrl(url);
  const u = new URL(url);
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/v1/relay';
  return u.toString();
}
