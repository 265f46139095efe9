// Reads svc.yaml: YAML -> schema (with defaults) -> secrets and mode rules -> the resolved Config.

import { createHash } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { Scope, Warning } from '../protocol/types.js';
import { postureWarnings, parseListenAddr } from './posture.js';
import { formatSchemaErrors, validateConfig, validatePairingList } from './schema.js';
import {
  type Config,
  DEFAULT_STORE_SCHEMA,
  type FilesStoreConfig,
  type LoadedConfig,
  type PairingConfig,
  type Registration,
  type TokenConfig,
} from './types.js';
import { resolveFilesStore } from './files-store.js';
import type { HookSecrets } from './sections.js';
import { resolveHooks, type FileInboundHook, type FileWebhook } from './webhooks.js';
import { resolveA2aAgents, type FileA2aAgent } from './a2a-agents.js';

/** A config that cannot be used; the message is one readable line (`svc.yaml: auth.mode: must be one of ...`). */
export class ConfigError extends Error {
  readonly code = 'config_invalid';
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The file's shape once the schema has accepted it and filled its defaults. */
interface FileConfig {
  network: { id: string; name?: string };
  server: Config['server'];
  store: {
    backend: 'sqlite' | 'memory' | 'postgres';
    path: string;
    checkpoint_bytes: number;
    url?: string;
    url_env?: string;
    schema?: string;
    files?: FilesStoreConfig;
  };
  auth: {
    mode: Config['auth']['mode'];
    public_read: boolean;
    agent_registration: Registration;
    tokens: FileToken[];
  };
  rooms: Config['rooms'];
  pairings: PairingConfig[];
  require_pair_network_binding: boolean;
  webhooks: FileWebhook[];
  inbound_hooks: FileInboundHook[];
  a2a_agents: FileA2aAgent[];
}

interface FileToken {
  id?: string;
  value?: string;
  value_env?: string;
  scopes: Scope[];
  agents?: string[];
}

export interface ParseOptions {
  /** Folder that relative paths (store.path) are resolved against. */
  baseDir: string;
  env: NodeJS.ProcessEnv;
  /** Shown as the prefix of error messages. */
  file?: string;
  /** `client` for every command but `svc serve`: a hook secret missing here is a warning (default `serve`). */
  hookSecrets?: HookSecrets;
}

/** Reads, checks and resolves a config file; throws ConfigError with one readable line. */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env, hookSecrets: HookSecrets = 'serve'): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file (run `svc init` to create one)' : `cannot read: ${e.message}`;
    throw new ConfigError(`${file}: ${why}`, file);
  }
  const raw = parseYaml(text, file);
  checkSecretFile(file, raw);
  const loaded = parseConfig(raw, { baseDir: dirname(resolve(file)), env, file, hookSecrets });
  return { ...loaded, file: resolve(file) };
}

/** Parses YAML text into a plain value; a syntax error, an empty file or a non-mapping is a ConfigError. */
export function parseYaml(text: string, file: string): Record<string, unknown> {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0];
    const where = pos ? ` at line ${pos.line}, column ${pos.col}` : '';
    const what = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new ConfigError(`${file}: YAML syntax error${where}: ${what}`, file);
  }
  const raw: unknown = doc.toJS();
  if (raw === null || raw === undefined) throw new ConfigError(`${file}: the file is empty (expected at least network.id)`, file);
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(
      `${file}: must be a YAML mapping of keys (network:, server:, auth: ...), not ${Array.isArray(raw) ? 'a list' : `a ${typeof raw}`}`,
      file,
    );
  }
  return raw as Record<string, unknown>;
}

/** Validates a parsed config, fills defaults, resolves secrets and paths and applies the auth mode rules. */
export function parseConfig(raw: unknown, opts: ParseOptions): LoadedConfig {
  const label = opts.file;
  const fail: (line: string) => never = (line) => {
    throw new ConfigError(label ? `${label}: ${line}` : line, label);
  };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    fail('(top level): must be a mapping of keys (network:, server:, auth: ...)');
  // ajv fills defaults in place: work on a copy so the caller's value, and what was set explicitly, survive.
  const explicit = raw as Record<string, Record<string, unknown> | undefined>;
  const data = structuredClone(raw) as FileConfig;
  if (!validateConfig(data)) fail(formatSchemaErrors(validateConfig.errors, data));

  try {
    parseListenAddr(data.server.listen_addr);
  } catch (err) {
    fail(`server.listen_addr: ${(err as Error).message}`);
  }

  const warnings: Warning[] = [];
  const auth = resolveAuth(data, explicit.auth ?? {}, opts.env, fail, warnings);
  const pairings = [...data.pairings, ...envPairings(opts.env)];
  checkPairings(pairings, data.pairings.length, data.network.id, fail, warnings);
  checkRooms(data.rooms, new Set(pairings.map((p) => p.id)), fail, warnings);

  const config: Config = {
    network: { id: data.network.id, name: data.network.name ?? data.network.id },
    server: data.server,
    store: resolveStore(data.store, opts, fail),
    auth,
    rooms: data.rooms,
    pairings,
    require_pair_network_binding: data.require_pair_network_binding,
    ...resolveHooks(data.webhooks, data.inbound_hooks, opts.env, fail, opts.hookSecrets ?? 'serve', warnings),
    a2a_agents: resolveA2aAgents(data.a2a_agents, opts.env, fail, opts.hookSecrets ?? 'serve', warnings),
  };
  warnings.push(...postureWarnings(config));
  return { config, file: opts.file ? resolve(opts.file) : undefined, warnings };
}

/** The store section with its path resolved and, for postgres, its URL read (never echoed). */
function resolveStore(store: FileConfig['store'], opts: ParseOptions, fail: (line: string) => never): Config['store'] {
  const { url_env, url: inline, ...rest } = store;
  const out: Config['store'] = { ...rest, path: resolve(opts.baseDir, store.path) };
  if (store.backend !== 'postgres') {
    for (const key of ['url', 'url_env', 'schema', 'files'] as const) {
      if (store[key] !== undefined) fail(`store.${key}: only used with store.backend: postgres`);
    }
    return out;
  }
  if (inline !== undefined && url_env !== undefined) fail('store: set url or url_env, not both');
  let url = inline;
  if (url_env !== undefined) {
    url = opts.env[url_env];
    if (url === undefined) fail(`store.url_env: environment variable ${url_env} is not set`);
    if (url === '') fail(`store.url_env: environment variable ${url_env} is empty`);
  }
  if (url === undefined) fail('store: backend postgres needs url or url_env (postgres://user:password@host:5432/db)');
  const where = url_env !== undefined ? `store.url_env (${url_env})` : 'store.url';
  if (!isPostgresUrl(url!)) fail(`${where}: must be a postgres:// or postgresql:// URL`);
  const files = store.files && resolveFilesStore(store.files, opts.env, fail);
  return { ...out, url: url!, schema: store.schema ?? DEFAULT_STORE_SCHEMA, ...(files ? { files } : {}) };
}

function isPostgresUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'postgres:' || u.protocol === 'postgresql:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** A store URL for display: scheme, host, port and database; never the user's password. */
export function describeStoreUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return '(an unparsable URL)';
  }
}

function resolveAuth(
  data: FileConfig,
  explicit: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  fail: (line: string) => never,
  warnings: Warning[],
): Config['auth'] {
  const { mode } = data.auth;
  let { public_read, agent_registration } = data.auth;
  if (mode === 'open') {
    if (explicit.agent_registration !== undefined && explicit.agent_registration !== 'open') {
      fail('auth.agent_registration: must be open when auth.mode is open (use auth.mode: bearer to restrict registration)');
    }
    if (explicit.public_read === false) {
      warnings.push({
        severity: 'info',
        code: 'public_read_forced',
        message: 'auth.public_read: false is ignored: auth.mode open always allows public reads',
        action: 'remove auth.public_read, or use auth.mode: bearer to keep reads private',
      });
    }
    public_read = true;
    agent_registration = 'open';
  }

  const tokens: TokenConfig[] = data.auth.tokens.map((t, i) => {
    const at = `auth.tokens[${i}]`;
    if (t.value !== undefined && t.value_env !== undefined) fail(`${at}: set value or value_env, not both`);
    let value = t.value;
    if (t.value_env !== undefined) {
      value = env[t.value_env];
      if (value === undefined) fail(`${at}.value_env: environment variable ${t.value_env} is not set`);
      if (value === '') fail(`${at}.value_env: environment variable ${t.value_env} is empty`);
    }
    if (value === undefined) fail(`${at}: needs value or value_env`);
    const token: TokenConfig = { id: t.id ?? derivedTokenId(value!), value: value!, scopes: t.scopes };
    if (t.agents) token.agents = t.agents;
    return token;
  });
  if (mode === 'bearer' && tokens.length === 0) fail('auth.tokens: bearer mode needs at least one static token');
  firstDuplicate(
    tokens.map((t) => t.id),
    (i, j) => fail(`auth.tokens[${i}].id: duplicate token id "${tokens[i]!.id}" (also auth.tokens[${j}])`),
  );
  // Never echo the value itself: the message ends up in logs.
  firstDuplicate(
    tokens.map((t) => t.value),
    (i, j) => fail(`auth.tokens[${i}]: same value as auth.tokens[${j}]`),
  );
  checkAgentOwners(tokens, fail);
  return { mode, public_read, agent_registration, tokens };
}

/** One agent, one owning credential: two tokens listing the same agent would leave it ambiguous. */
function checkAgentOwners(tokens: TokenConfig[], fail: (line: string) => never): void {
  const owner = new Map<string, string>();
  tokens.forEach((t, i) =>
    (t.agents ?? []).forEach((agent, k) => {
      const at = `auth.tokens[${i}].agents[${k}]`;
      const first = owner.get(agent);
      if (first === undefined) owner.set(agent, at);
      else if (!first.startsWith(`auth.tokens[${i}].`))
        fail(`${first} and ${at} both name agent ${agent}: an agent belongs to one token; keep it in one list`);
    }),
  );
}

/** The id of a token entry that has none: `sha256:` and the first 12 hex digits of the value's hash. */
export function derivedTokenId(value: string): string {
  return `sha256:${createHash('sha256').update(value).digest('hex').slice(0, 12)}`;
}

/** Pairings from SERVICE_PAIRINGS_JSON; its errors name the variable, not the file. */
function envPairings(env: NodeJS.ProcessEnv): PairingConfig[] {
  const text = env.SERVICE_PAIRINGS_JSON;
  if (text === undefined || text.trim() === '') return [];
  const bad = raise;
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch (err) {
    bad(`SERVICE_PAIRINGS_JSON: not valid JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(list)) bad('SERVICE_PAIRINGS_JSON: must be a JSON array of pairing objects');
  if (!validatePairingList(list)) bad(formatSchemaErrors(validatePairingList.errors, list, 'SERVICE_PAIRINGS_JSON'));
  return list as PairingConfig[];
}

function checkPairings(
  pairings: PairingConfig[],
  fromFile: number,
  networkId: string,
  fail: (line: string) => never,
  warnings: Warning[],
): void {
  const where = (i: number) => (i < fromFile ? `pairings[${i}]` : `SERVICE_PAIRINGS_JSON[${i - fromFile}]`);
  const failAt = (i: number, line: string): never => (i < fromFile ? fail(line) : raise(line));
  pairings.forEach((p, i) => {
    if (!p.remote_base_url && !p.relay) failAt(i, `${where(i)}: needs remote_base_url or a relay block`);
    if (p.remote_network_id === networkId) {
      warnings.push({
        severity: 'warning',
        code: 'pairing_to_self',
        message: `${where(i)}.remote_network_id: "${networkId}" is this network's own id`,
        action: 'pair with a network that has a different network.id',
      });
    }
  });
  firstDuplicate(
    pairings.map((p) => p.id),
    (i, j) => failAt(i, `${where(i)}.id: duplicate pairing id "${pairings[i]!.id}" (also ${where(j)})`),
  );
}

function checkRooms(rooms: Config['rooms'], pairingIds: Set<string>, fail: (line: string) => never, warnings: Warning[]): void {
  firstDuplicate(
    rooms.map((r) => r.id),
    (i, j) => fail(`rooms[${i}].id: duplicate room id "${rooms[i]!.id}" (also rooms[${j}])`),
  );
  rooms.forEach((room, i) => {
    // Every agent that registers joins it, self-registered strangers included: a private room would be open to anyone.
    if (room.join_on_register && room.visibility === 'private')
      fail(
        `rooms[${i}].join_on_register: room ${room.id} is private, and every agent that registers would join it and read it; add its members by name instead`,
      );
    room.federation?.pairings.forEach((id, k) => {
      if (pairingIds.has(id)) return;
      warnings.push({
        severity: 'warning',
        code: 'unknown_federation_pairing',
        message: `rooms[${i}].federation.pairings[${k}]: no pairing has id "${id}"; nothing can relay into room ${room.id} through it`,
        action: `add a pairing with id ${id}, or remove it from the room's federation`,
      });
    });
  });
}

/** Calls `found(i, j)` for the first value at index i that already appeared at index j < i. */
function firstDuplicate(values: string[], found: (i: number, j: number) => void): void {
  const seen = new Map<string, number>();
  for (const [i, v] of values.entries()) {
    const j = seen.get(v);
    if (j !== undefined) return found(i, j);
    seen.set(v, i);
  }
}

function raise(line: string): never {
  throw new ConfigError(line);
}

/** Where a parsed config holds plaintext secrets (key paths), for the file-mode rule. */
export function plaintextSecretPaths(raw: unknown): string[] {
  const out: string[] = [];
  const obj = (v: unknown): Record<string, unknown> | undefined =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const has = (v: unknown) => typeof v === 'string' && v !== '';
  const root = obj(raw);
  list(obj(root?.auth)?.tokens).forEach((t, i) => has(obj(t)?.value) && out.push(`auth.tokens[${i}].value`));
  // A store URL is a secret only when it carries a password.
  const storeUrl = obj(root?.store)?.url;
  if (typeof storeUrl === 'string' && /^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(storeUrl)) out.push('store.url');
  list(root?.pairings).forEach((p, i) => {
    if (has(obj(p)?.token)) out.push(`pairings[${i}].token`);
    if (has(obj(obj(p)?.relay)?.token)) out.push(`pairings[${i}].relay.token`);
    if (has(obj(obj(p)?.relay)?.access_token)) out.push(`pairings[${i}].relay.access_token`);
  });
  return out;
}

/** Refuses a config file holding plaintext secrets unless it is a regular, non-symlink file with no group/world bits. */
export function checkSecretFile(file: string, raw: unknown): void {
  const secrets = plaintextSecretPaths(raw);
  if (secrets.length === 0) return;
  const holds = `holds plaintext secrets (${secrets.slice(0, 2).join(', ')}${secrets.length > 2 ? ', ...' : ''})`;
  const envHint = 'or move the secrets to auth.tokens[].value_env / store.url_env / SERVICE_PAIRINGS_JSON';
  const st = lstatSync(file);
  if (st.isSymbolicLink()) {
    throw new ConfigError(`${file}: ${holds} but is a symlink; point --config at the real file, ${envHint}`, file);
  }
  if (!st.isFile()) throw new ConfigError(`${file}: ${holds} but is not a regular file`, file);
  // Windows has no POSIX mode bits to speak of; the rule is about Unix permissions.
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
    throw new ConfigError(`${file}: ${holds} but is readable or writable by group or others (mode ${mode}); run: chmod 600 ${file}`, file);
  }
}
