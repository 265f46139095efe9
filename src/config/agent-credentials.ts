// Where agent tokens are kept: one owner-only folder per network, beside the config when there is
// one (<configDir>/.svc/agents/<networkId>@<uid>/<agentId>.token), else under ~/.svc/agents/. The
// key is the network's identity: its id and the unique id its store holds (GET /v1/network `uid`),
// so every instance of the network (another URL, a second server on one Postgres) finds the token
// and another network that shares the id (two `home`s) does not. Before servers had a uid, the key
// was the id and the server's address (<networkId>@<host>-<port>): a token found there is copied to
// the identity's folder when the uid is known. Older releases still kept a claimed token in
// `svc agent run`'s state folder: read once, then copied here.

import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { identityKey } from '../protocol/network-key.js';

/** Which network on which server, and where the config (if any) lives. */
export interface CredentialScope {
  networkId: string;
  /** The network's unique id (GET /v1/network `uid`); absent when the server is older or did not answer. */
  uid?: string;
  /** The server URL the token is used with. */
  url: string;
  /** Absolute path of the config file, when one exists: tokens are kept beside it. */
  configFile?: string;
  /** The home folder (tests set HOME). */
  home?: string;
}

/** A kept token and the file it is in. */
export interface KeptToken {
  agentId: string;
  token: string;
  file: string;
}

// Agent ids are [A-Za-z0-9._-]; anything else could climb out of the folder.
const SAFE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The folder name of a network on a server: `<networkId>@<host>-<port>` (loopback names read alike). */
export function scopeKey(networkId: string, url: string): string {
  const u = new URL(url);
  const raw = u.hostname.replace(/^\[|\]$/g, '');
  const host = raw === 'localhost' || raw === '::1' || raw.startsWith('127.') ? '127.0.0.1' : raw;
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  const scheme = u.protocol === 'https:' ? 'https-' : '';
  return `${networkId}@${scheme}${host.replace(/[^A-Za-z0-9.-]/g, '_')}-${port}`.replace(/[^A-Za-z0-9.@_-]/g, '_');
}

/** The folders kept under one key: beside the config first (when there is one), then under HOME. */
function dirsOf(s: CredentialScope, key: string): string[] {
  const homeDir = path.join(s.home ?? os.homedir(), '.svc', 'agents', key);
  return s.configFile ? [path.join(path.dirname(s.configFile), '.svc', 'agents', key), homeDir] : [homeDir];
}

/** The folders a scope's tokens are kept in, the one new tokens go to first (by identity when the uid is known). */
export function credentialDirs(s: CredentialScope): string[] {
  return dirsOf(s, s.uid !== undefined ? identityKey(s.networkId, s.uid) : scopeKey(s.networkId, s.url));
}

/**
 * The uids of the network `networkId` whose tokens are kept beside a config (`<id>@<uid>` folders):
 * how a command finds them while the config's own server is down (it answers its uid only when up).
 */
export function uidsKeptBeside(configFile: string, networkId: string): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(path.join(path.dirname(configFile), '.svc', 'agents'));
  } catch {
    return [];
  }
  const prefix = `${networkId}@`;
  // Address-keyed folders (<id>@<host>-<port>) are not uids: a uid is one id, `nuid_...`.
  return names.filter((n) => n.startsWith(prefix) && /^nuid_[A-Za-z0-9]+$/.test(n.slice(prefix.length))).map((n) => n.slice(prefix.length));
}

/** The folders of the address-keyed layout, still read (and copied from) when the uid is known. */
function addressDirs(s: CredentialScope): string[] {
  return s.uid !== undefined ? dirsOf(s, scopeKey(s.networkId, s.url)) : [];
}

/** The file an agent's token is kept in (whether or not it exists yet). */
export function tokenFileOf(s: CredentialScope, agentId: string): string {
  checkId(agentId);
  return path.join(credentialDirs(s)[0]!, `${agentId}.token`);
}

function checkId(agentId: string): void {
  if (!SAFE.test(agentId)) throw new Error(`agent id ${JSON.stringify(agentId)} cannot name a token file`);
}

function readToken(file: string): string | undefined {
  try {
    const t = readFileSync(file, 'utf8').trim();
    return t === '' ? undefined : t;
  } catch {
    return undefined;
  }
}

/**
 * The kept token of an agent (beside the config first, then under HOME); undefined when none. One
 * kept under the server's address by an earlier release is copied to the identity's folder (the
 * old file left as it was) and returned from there.
 */
export function readKeptToken(s: CredentialScope, agentId: string): (KeptToken & { migratedFrom?: string }) | undefined {
  if (!SAFE.test(agentId)) return undefined;
  for (const dir of credentialDirs(s)) {
    const file = path.join(dir, `${agentId}.token`);
    const token = readToken(file);
    if (token !== undefined) return { agentId, token, file };
  }
  for (const dir of addressDirs(s)) {
    const old = path.join(dir, `${agentId}.token`);
    const token = readToken(old);
    if (token !== undefined) return { agentId, token, file: keepToken(s, agentId, token), migratedFrom: old };
  }
  return undefined;
}

/** Keeps an agent's token (folder 0700, file 0600, written whole and fsynced); returns the file. */
export function keepToken(s: CredentialScope, agentId: string, token: string): string {
  const file = tokenFileOf(s, agentId);
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode applies only to folders it creates: an existing one is narrowed too.
  chmodSync(dir, 0o700);
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeFileSync(fd, `${token}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return file;
}

/** The agents with a kept token in this scope (every folder, without repeats), sorted. */
export function keptAgents(s: CredentialScope): string[] {
  const ids = new Set<string>();
  for (const dir of [...credentialDirs(s), ...addressDirs(s)]) {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) if (n.endsWith('.token') && readToken(path.join(dir, n)) !== undefined) ids.add(n.slice(0, -'.token'.length));
  }
  return [...ids].sort();
}

/** Where releases before kept credentials left a claimed token (`svc agent run`'s state folder). */
export function legacyTokenFiles(
  networkId: string,
  agentId: string,
  o: { cwd?: string; home?: string; agentRunStateDir?: string } = {},
): string[] {
  if (!SAFE.test(agentId) || !SAFE.test(networkId)) return [];
  const cwd = o.cwd ?? process.cwd();
  const home = o.home ?? os.homedir();
  const base = o.agentRunStateDir !== undefined ? path.resolve(cwd, o.agentRunStateDir) : path.join(cwd, '.svc', 'agent-run');
  return [path.join(base, networkId, agentId, 'agent-token'), path.join(home, '.svc', 'mcp', networkId, agentId, 'agent-token')];
}

/**
 * The kept token, or one found at an old place (then copied to the kept place, the old file left
 * as it was); undefined when there is none anywhere.
 */
export function findToken(s: CredentialScope, agentId: string, legacy: string[] = []): (KeptToken & { migratedFrom?: string }) | undefined {
  const kept = readKeptToken(s, agentId);
  if (kept) return kept;
  for (const old of legacy) {
    if (!existsSync(old)) continue;
    const token = readToken(old);
    if (token === undefined) continue;
    return { agentId, token, file: keepToken(s, agentId, token), migratedFrom: old };
  }
  return undefined;
}
