// Which server a client command talks to, and with what: --url/SVC_URL, else the config's
// server.listen_addr; --token/SVC_TOKEN; --config/SVC_CONFIG, else ./svc.yaml.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYamlText } from 'yaml';
import { parseListenAddr } from '../config/posture.js';

export const DEFAULT_LISTEN = '127.0.0.1:8787';

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

export interface Target {
  url: string;
  token?: string;
  /** Absolute config path, and whether it exists. */
  configFile: string;
  configExists: boolean;
  /** Where the URL came from, for messages. */
  urlSource: '--url' | 'SVC_URL' | 'config' | 'default';
}

/** The config path of a command: --config, SVC_CONFIG, or ./svc.yaml. */
export function configPath(opts: TargetOptions, env: NodeJS.ProcessEnv): { file: string; explicit: boolean } {
  const given = opts.config ?? env.SVC_CONFIG;
  return { file: path.resolve(given ?? 'svc.yaml'), explicit: given !== undefined };
}

/** The command that starts the server a target points at (for "nothing answers" messages). */
export function startCommandOf(t: Target): string {
  if (t.urlSource !== 'config') return 'svc serve';
  return t.configFile === path.resolve('svc.yaml') ? 'svc serve' : `svc serve --config ${t.configFile}`;
}

/** Resolves the server URL and token; throws UsageError for a malformed URL, TargetError for an unreadable config. */
export function resolveTarget(opts: TargetOptions, env: NodeJS.ProcessEnv): Target {
  const { file, explicit } = configPath(opts, env);
  const configExists = existsSync(file);
  const token = opts.token ?? (env.SVC_TOKEN || undefined);
  if (token !== undefined && token.trim() === '') throw new UsageError('--token: must not be empty');
  let url: string;
  let urlSource: Target['urlSource'];
  if (opts.url !== undefined || env.SVC_URL) {
    urlSource = opts.url !== undefined ? '--url' : 'SVC_URL';
    url = checkUrl(opts.url ?? env.SVC_URL!, urlSource);
  } else if (configExists) {
    urlSource = 'config';
    url = urlOfListenAddr(listenAddrOf(file));
  } else {
    if (explicit) throw new TargetError(`${file}: no such file (pass --url, or run svc init)`);
    urlSource = 'default';
    url = urlOfListenAddr(DEFAULT_LISTEN);
  }
  return { url, ...(token !== undefined ? { token } : {}), configFile: file, configExists, urlSource };
}

function checkUrl(raw: string, source: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`${source}: "${raw}" is not a URL (want e.g. http://127.0.0.1:8787)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`${source}: must be an http:// or https:// URL, not ${u.protocol}`);
  return raw.replace(/\/+$/, '');
}

/** Only server.listen_addr is read: a config that `serve` would refuse still says where the server is. */
function listenAddrOf(file: string): string {
  let raw: { server?: { listen_addr?: unknown } } | null;
  try {
    raw = parseYamlText(readFileSync(file, 'utf8')) as typeof raw;
  } catch (err) {
    throw new TargetError(`${file}: cannot read the server address: ${(err as Error).message.split('\n')[0]} (svc doctor says more)`);
  }
  const server = raw && typeof raw === 'object' ? raw.server : undefined;
  const addr = server && typeof server === 'object' ? server.listen_addr : undefined;
  return typeof addr === 'string' ? addr : DEFAULT_LISTEN;
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
  if (port === 0) throw new UsageError(`server.listen_addr ${addr} picks a free port at start; pass --url with the port \`svc serve\` printed`);
  if (host === '' || host === '0.0.0.0') host = '127.0.0.1';
  else if (host === '::') host = '::1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
