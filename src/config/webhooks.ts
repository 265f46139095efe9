// The `webhooks` and `inbound_hooks` sections of svc.yaml (#28 parts 3 and 4), once the schema has
// accepted them: secrets read from the environment, targets checked against private addresses,
// ids unique. The feature (src/webhooks/) takes these as they are.

import { privateHostRefusal } from '../protocol/private-address.js';
import type { Warning } from '../protocol/types.js';
import { checkUniqueIds, type HookSecrets } from './sections.js';

export interface WebhookRetry {
  /** How long a delivery is retried before it is dead-lettered. */
  window_ms: number;
  /** The first retry's delay; each next one doubles (with jitter) up to max_ms. */
  initial_ms: number;
  max_ms: number;
}

export interface WebhookConfig {
  id: string;
  url: string;
  /** Event types to send; `*` is every type. */
  events: string[];
  /** Only events of these rooms; undefined: every room. */
  rooms?: string[];
  secret_env: string;
  /** The signing secret (from secret_env): `whsec_<base64>`, or raw bytes otherwise. */
  secret: string;
  allow_private_network: boolean;
  timeout_ms: number;
  retry: WebhookRetry;
}

export interface InboundHookConfig {
  id: string;
  room: string;
  /** The agent id the hook's messages are sent as. */
  sender: string;
  sender_name?: string;
  secret_env: string;
  /** The hook's secret (from secret_env). */
  secret: string;
}

export type FileWebhook = Omit<WebhookConfig, 'secret'>;
export type FileInboundHook = Omit<InboundHookConfig, 'secret'>;

/** Why a webhook secret is unusable (`whsec_` followed by something that is not base64), or undefined. */
export function secretProblem(value: string): string | undefined {
  if (value.startsWith('whsec_') && !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(value))
    return 'starts with whsec_ but the rest is not base64 (the Standard Webhooks form is whsec_<base64>)';
  return undefined;
}

/**
 * Checks an outbound webhook's target and retry bounds (the schema checked the rest); `at` is its
 * key path (`webhooks[0]`, `body.webhooks[0]`). Shared by svc.yaml and `svc apply`.
 */
export function checkWebhook(w: Omit<FileWebhook, 'secret_env'>, at: string, fail: (line: string) => never): void {
  let url: URL;
  try {
    url = new URL(w.url);
  } catch {
    fail(`${at}.url: not a valid URL`);
  }
  if (url!.username || url!.password) fail(`${at}.url: must not carry credentials (the signature authenticates the sender)`);
  const refusal = privateHostRefusal(url!.hostname);
  if (refusal && !w.allow_private_network)
    fail(`${at}.url: ${refusal}; set ${at}.allow_private_network: true to allow a target on a private network`);
  if (w.retry.max_ms < w.retry.initial_ms) fail(`${at}.retry.max_ms: must be at least retry.initial_ms (${w.retry.initial_ms})`);
}

/** Resolves both sections; `fail` throws the one-line config error (key path first). */
export function resolveHooks(
  webhooks: FileWebhook[],
  inbound: FileInboundHook[],
  env: NodeJS.ProcessEnv,
  fail: (line: string) => never,
  secrets: HookSecrets = 'serve',
  warnings: Warning[] = [],
): { webhooks: WebhookConfig[]; inbound_hooks: InboundHookConfig[] } {
  const secretOf = (at: string, name: string): string => {
    const v = env[name];
    const problem = v === undefined ? 'is not set' : v === '' ? 'is empty' : secretProblem(v);
    if (problem === undefined) return v!;
    const what = v === undefined || v === '' ? `environment variable ${name} ${problem}` : `${name} ${problem}`;
    if (secrets === 'serve')
      fail(
        `${at}.secret_env: ${what}; svc serve reads hook secrets from its own environment when it starts (set it there and restart: a reload cannot add it)`,
      );
    if (secrets === 'apply') fail(`${at}.secret_env: ${what} (svc apply reads the secret here and sends it to the server)`);
    warnings.push({
      severity: 'warning',
      code: 'hook_secret_unset',
      message: `${at}.secret_env: ${what} in this shell; only the server needs it, when it starts`,
      action: `make sure ${name} is set in the environment svc serve starts with (a running server cannot pick it up by a reload)`,
    });
    return '';
  };
  const out = webhooks.map((w, i): WebhookConfig => {
    const at = `webhooks[${i}]`;
    checkWebhook(w, at, fail);
    return { ...w, secret: secretOf(at, w.secret_env) };
  });
  const hooks = inbound.map((h, i): InboundHookConfig => ({ ...h, secret: secretOf(`inbound_hooks[${i}]`, h.secret_env) }));
  checkUniqueIds(
    out.map((w) => w.id),
    'webhooks',
    fail,
  );
  checkUniqueIds(
    hooks.map((h) => h.id),
    'inbound_hooks',
    fail,
  );
  return { webhooks: out, inbound_hooks: hooks };
}
