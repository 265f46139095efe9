// `svc init`: renders the default config from templates/svc.yaml and writes it privately.

import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parse as parseYamlValue } from 'yaml';
import { ConfigError } from './load.js';
import { parseListenAddr } from './posture.js';
import type { AuthMode } from './types.js';

const TEMPLATE_URL = new URL('../../templates/svc.yaml', import.meta.url);
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface InitOptions {
  network_id: string;
  name: string;
  listen_addr?: string;
  auth_mode?: AuthMode;
  /** Required for bearer mode: becomes the `admin` static token. */
  admin_token?: string;
  /**
   * The local operator's token (id `operator`, scopes observe, write, admin): client commands run
   * against this config's own server use it when no --token/SVC_TOKEN is given. Not in none mode.
   */
  operator_token?: string;
}

/**
 * The network id `svc init` and `svc serve --init` derive from a folder's name when none is given:
 * lower-cased, runs of other characters become `-`, cut to 64 and trimmed to start with a letter or
 * digit; `home` when nothing usable remains (`/`, `...`).
 */
export function networkIdOfFolder(dir: string): string {
  const base = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64)
    .replace(/[-.]+$/, '');
  return ID.test(base) ? base : 'home';
}

/** The commented YAML of a default config (loopback, open mode, sqlite under .svc/, a public `general` room). */
export function renderInitConfig(opts: InitOptions): string {
  const mode = opts.auth_mode ?? 'open';
  const listen = opts.listen_addr ?? '127.0.0.1:8787';
  if (!ID.test(opts.network_id)) {
    throw new ConfigError(`network.id: must be an id: letters, digits, . _ - (max 64), starting with a letter or digit`);
  }
  try {
    parseListenAddr(listen);
  } catch (err) {
    throw new ConfigError(`server.listen_addr: ${(err as Error).message}`);
  }
  if (mode === 'bearer' && !opts.admin_token) {
    throw new ConfigError('auth.tokens: bearer mode needs at least one static token (give an admin token)');
  }
  // bearer defaults to `token` registration: agents register with an attach or admin token.
  const perMode = {
    open: { read: 'true', reg: 'open' },
    bearer: { read: 'false', reg: 'token' },
    none: { read: 'false', reg: 'disabled' },
  }[mode];
  const lines: string[] = [];
  if (opts.operator_token && mode !== 'none') {
    lines.push(
      "    # The local operator's token: svc rooms/agents/apply/tail/doctor/console use it when they talk",
      '    # to the server of this file and no --token or SVC_TOKEN is given. Rotate it by changing the value.',
      `    - id: operator`,
      `      value: ${scalar(opts.operator_token)}`,
      '      scopes: [observe, write, admin]',
    );
  }
  if (opts.admin_token)
    lines.push('    - id: admin', `      value: ${scalar(opts.admin_token)}`, '      scopes: [observe, write, admin, attach]');
  const tokens = lines.length > 0 ? ['', ...lines].join('\n') : ' []';
  const values: Record<string, string> = {
    network_id: scalar(opts.network_id),
    name: scalar(opts.name || opts.network_id),
    listen_addr: scalar(listen),
    auth_mode: mode,
    public_read: perMode.read,
    agent_registration: perMode.reg,
    tokens,
  };
  return readFileSync(TEMPLATE_URL, 'utf8').replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const v = values[key];
    if (v === undefined) throw new Error(`templates/svc.yaml: unknown placeholder {{${key}}}`);
    return v;
  });
}

/** A YAML scalar for a string: plain when that reads back as the same string, else double-quoted. */
function scalar(s: string): string {
  // Words YAML 1.1 tools read as booleans or null are quoted too, though our YAML 1.2 parser would not.
  const reserved = /^(y|n|yes|no|on|off|true|false|null|~)$/i.test(s);
  let plain = !reserved && /^[\w.][\w .:/@+-]*$/.test(s) && !/[ :]$/.test(s) && !/: /.test(s);
  try {
    plain &&= parseYamlValue(s) === s; // `true`, `8787`, `null` and friends would read back as other types
  } catch {
    plain = false;
  }
  // JSON string syntax is valid YAML double-quoted syntax.
  return plain ? s : JSON.stringify(s);
}

/** Writes a config file atomically with mode 0600, creating its folder; refuses to replace one unless forced. */
export function writeConfigFile(file: string, text: string, opts: { force?: boolean } = {}): void {
  if (!opts.force && exists(file)) throw new ConfigError(`${file} exists; pass --force to overwrite`, file);
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(tmp, 0o600); // a strict umask may have narrowed it below 0600; the owner must be able to edit it
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
