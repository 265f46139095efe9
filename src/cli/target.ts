// Which server a client command talks to, and with what: --url/SVC_URL, else the runtime file of
// the config's running server (its real URL: port 0, --listen), else the config's
// server.listen_addr; --token/SVC_TOKEN, else the config's operator token when the target is the
// config's own server (a kubectl context: the token never goes to another server);
// --config/SVC_CONFIG, else ./svc.yaml.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { envValue } from '../config/env.js';
import { parseListenAddr } from '../config/posture.js';
import { readRuntimeFile, type RuntimeInfo } from '../config/runtime-file.js';
import type { CommandTarget } from '../feature-cli.js';

export const DEFAULT_LISTEN = '127.0.0.1:8787';

/**
 * The YAML parser, loaded only when there is a config to read: it is a quarter of a client
 * command's start (~25 ms), and commands given --url without a svc.yaml beside them never need it.
 */
const parseYamlText = (text: string): unknown => (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);

/** The id of the token `svc init` writes for the local operator's CLI (scopes observe, write, admin). */
export const OPERATOR_TOKEN_ID = 'operator';

/** A wrong flag or argument: printed with exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * The config cannot say where the server is (missing, unreadable, not YAML): exit code 1.
 * Separate from ConfigError so client commands need not load the config schema (ajv) to start.
 */
export class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetError';
  }
}

export interface TargetOptions {
  url?: string;
  token?: string;
  config?: string;
}

/** Where a client command goes: what a feature's command sees of it (CommandTarget: the config file, the URL's source) and more. */
export interface Target extends CommandTarget {
  url: string;
  token?: string;
  /** Where the token came from; undefined when the calls are anonymous ('kept': an agent's kept token, src/cli/agent-token.ts). */
  tokenSource?: '--token' | 'SVC_TOKEN' | 'config' | 'kept';
  /** The network of this config: the running server's (runtime file), else the config's network.id. */
  networkId?: string;
  /**
   * The config's server.listen_addr when the URL is this config's own server (runtime file or
   * listen_addr): the stable name of that server, whatever port a `listen_addr: ...:0` or a
   * `--listen` gave it this time (agent tokens are kept under it).
   */
  listenAddr?: string;
  /** The scopes of the config's operator token, when that is the token sent (tokenSource 'config'). */
  operatorScopes?: string[];
  /** The live runtime file of this config's server, when one runs on this host. */
  runtime?: RuntimeInfo;
  /**
   * Whether the URL is known to be this config's own server: it came from the live runtime file or
   * equals its URL. Otherwise the operator token goes out only after GET /v1/network names the
   * config's network (checkOwnNetwork).
   */
  verified: boolean;
}

/** The config path of a command: --config, SVC_CONFIG, or ./svc.yaml. */
export function configPath(opts: TargetOptions, env: NodeJS.ProcessEnv): { file: string; explicit: boolean } {
  const given = opts.config ?? envValue(env, 'SVC_CONFIG');
  return { file: path.resolve(given ?? 'svc.yaml'), explicit: given !== undefined };
}

/** The command that starts the server a target points at (for "nothing answers" messages). */
export function startCommandOf(t: Target): string {
  if (t.urlSource !== 'config' && t.urlSource !== 'runtime') return 'svc serve';
  return t.configFile === path.resolve('svc.yaml') ? 'svc serve' : `svc serve --config ${t.configFile}`;
}

/** Resolves the server URL and token; throws UsageError for a malformed URL, TargetError for an unreadable config. */
export function resolveTarget(opts: TargetOptions, env: NodeJS.ProcessEnv): Target {
  const { file, explicit } = configPath(opts, env);
  const configExists = existsSync(file);
  const given = opts.token ?? envValue(env, 'SVC_TOKEN');
  if (given !== undefined && given.trim() === '') throw new UsageError('--token: must not be empty');
  const urlGiven = opts.url !== undefined || envValue(env, 'SVC_URL') !== undefined;
  // With a URL given, a config that cannot be read only means no operator token.
  const local = !configExists ? undefined : urlGiven ? tryLocalServerOf(file, env) : localServerOf(file, env);
  const runtime = configExists ? readRuntimeFile(file) : undefined;
  let url: string;
  let urlSource: Target['urlSource'];
  if (urlGiven) {
    urlSource = opts.url !== undefined ? '--url' : 'SVC_URL';
    url = checkUrl(opts.url ?? envValue(env, 'SVC_URL')!, urlSource);
  } else if (local && runtime) {
    urlSource = 'runtime';
    url = runtime.url.replace(/\/+$/, '');
  } else if (local) {
    urlSource = 'config';
    url = urlOfConfig(local.listenAddr, file);
  } else {
    if (explicit) throw new TargetError(`${file}: no such file (pass --url, or run svc init)`);
    urlSource = 'default';
    url = urlOfListenAddr(DEFAULT_LISTEN);
  }
  const networkId = runtime?.network_id ?? local?.networkId;
  const verified = runtime !== undefined && sameServer(url, runtime.url);
  const ownListen = local && (urlSource === 'runtime' || urlSource === 'config') ? { listenAddr: local.listenAddr } : {};
  const target: Target = {
    url,
    configFile: file,
    configExists,
    urlSource,
    verified,
    ...(networkId ? { networkId } : {}),
    ...(runtime ? { runtime } : {}),
    ...ownListen,
  };
  if (given !== undefined) return { ...target, token: given, tokenSource: opts.token !== undefined ? '--token' : 'SVC_TOKEN' };
  const own = verified || (local !== undefined && isOwnServer(url, local.listenAddr));
  if (local?.operatorToken !== undefined && own)
    return { ...target, token: local.operatorToken, tokenSource: 'config', operatorScopes: local.operatorScopes ?? [] };
  return target;
}

/** The config's listen address as a URL; port 0 has no URL without a running server's runtime file. */
function urlOfConfig(listenAddr: string, file: string): string {
  try {
    return urlOfListenAddr(listenAddr);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const start = file === path.resolve('svc.yaml') ? 'svc serve' : `svc serve --config ${file}`;
    throw new TargetError(
      `no server of this config is running (server.listen_addr ${listenAddr} picks its port at start): start it with ${start}, or pass --url`,
    );
  }
}

/** Whether `url` is the server a config's listen address names (the only server its operator token goes to). */
export function isOwnServer(url: string, listenAddr: string): boolean {
  let own: string;
  try {
    own = urlOfListenAddr(listenAddr);
  } catch {
    return false;
  }
  return sameServer(url, own);
}

/** Whether two URLs name the same server (any loopback name counts as one). */
function sameServer(url: string, other: string): boolean {
  let a: URL;
  let b: URL;
  try {
    a = new URL(url);
    b = new URL(other);
  } catch {
    return false;
  }
  const loop = (h: string) => (h === 'localhost' || h === '[::1]' || h.startsWith('127.') ? 'loopback' : h);
  return a.protocol === b.protocol && a.port === b.port && loop(a.hostname) === loop(b.hostname);
}

function checkUrl(raw: string, source: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`${source}: "${raw}" is not a URL (want e.g. http://127.0.0.1:8787)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new UsageError(`${source}: must be an http:// or https:// URL, not ${u.protocol}`);
  return raw.replace(/\/+$/, '');
}

function tryLocalServerOf(file: string, env: NodeJS.ProcessEnv): ReturnType<typeof localServerOf> | undefined {
  try {
    return localServerOf(file, env);
  } catch {
    return undefined;
  }
}

/**
 * Only server.listen_addr, network.id and the operator token are read: a config that `serve` would refuse
 * still says where the server is.
 */
function localServerOf(
  file: string,
  env: NodeJS.ProcessEnv,
): { listenAddr: string; operatorToken?: string; operatorScopes?: string[]; networkId?: string } {
  let raw: { server?: { listen_addr?: unknown }; auth?: { tokens?: unknown }; network?: { id?: unknown } } | null;
  try {
    raw = parseYamlText(readFileSync(file, 'utf8')) as typeof raw;
  } catch (err) {
    throw new TargetError(`${file}: cannot read the server address: ${(err as Error).message.split('\n')[0]} (svc doctor says more)`);
  }
  const obj = (v: unknown): Record<string, unknown> | undefined =>
    v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  const addr = obj(obj(raw)?.server)?.listen_addr;
  const tokens = obj(obj(raw)?.auth)?.tokens;
  const op = Array.isArray(tokens) ? tokens.map(obj).find((t) => t?.id === OPERATOR_TOKEN_ID) : undefined;
  const value = typeof op?.value === 'string' ? op.value : typeof op?.value_env === 'string' ? envValue(env, op.value_env) : undefined;
  const scopes = Array.isArray(op?.scopes) ? op.scopes.filter((s): s is string => typeof s === 'string') : [];
  const id = obj(obj(raw)?.network)?.id;
  return {
    listenAddr: typeof addr === 'string' ? addr : DEFAULT_LISTEN,
    ...(value ? { operatorToken: value, operatorScopes: scopes } : {}),
    ...(typeof id === 'string' ? { networkId: id } : {}),
  };
}

/** The URL that names a listen address for keys (port 0 stays 0): wildcard hosts become loopback. */
export function keyUrlOfListenAddr(addr: string): string {
  const { host, port } = parseListenAddr(addr);
  const h = host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/** The URL a client uses to reach a listen address: wildcard hosts become loopback. */
export function urlOfListenAddr(addr: string): string {
  let host: string;
  let port: number;
  try {
    ({ host, port } = parseListenAddr(addr));
  } catch (err) {
    throw new TargetError(`server.listen_addr: ${(err as Error).message}`);
  }
  if (port === 0)
    throw new UsageError(`server.listen_addr ${addr} picks a free port at start; pass --url with the port \`svc serve\` printed`);
  if (host === '' || host === '0.0.0.0') host = '127.0.0.1';
  else if (host === '::') host = '::1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
