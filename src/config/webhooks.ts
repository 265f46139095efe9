// The `webhooks` and `inbound_hooks` sections of svc.yaml (#28 parts 3 and 4), once the schema has
// accepted them: secrets read from the environment, targets checked against private addresses,
// ids unique. The feature (src/webhooks/) takes these as they are.

import { privateHostRefusal } from '../protocol/private-address.js';

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

/** Resolves both sections; `fail` throws the one-line config error (key path first). */
export function resolveHooks(
  webhooks: FileWebhook[],
  inbound: FileInboundHook[],
  env: NodeJS.ProcessEnv,
  fail: (line: string) => never,
): { webhooks: WebhookConfig[]; inbound_hooks: InboundHookConfig[] } {
  const secretOf = (at: string, name: string): string => {
    const v = env[name];
    if (v === undefined) fail(`${at}.secret_env: environment variable ${name} is not set`);
    if (v === '') fail(`${at}.secret_env: environment variable ${name} is empty`);
    if (v!.startsWith('whsec_') && !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(v!))
      fail(`${at}.secret_env: ${name} starts with whsec_ but the rest is not base64 (the Standard Webhooks form is whsec_<base64>)`);
    return v!;
  };
  const out = webhooks.map((w, i): WebhookConfig => {
    const at = `webhooks[${i}]`;
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
    return { ...w, secret: secretOf(at, w.secret_env) };
  });
  const hooks = inbound.map((h, i): InboundHookConfig => ({ ...h, secret: secretOf(`inbound_hooks[${i}]`, h.secret_env) }));
  const dup = (ids: string[], where: string) => {
    const seen = new Map<string, number>();
    ids.forEach((id, i) => {
      const j = seen.get(id);
      if (j !== undefined) fail(`${where}[${i}].id: duplicate id "${id}" (also ${where}[${j}])`);
      seen.set(id, i);
    });
  };
  dup(
    out.map((w) => w.id),
    'webhooks',
  );
  dup(
    hooks.map((h) => h.id),
    'inbound_hooks',
  );
  return { webhooks: out, inbound_hooks: hooks };
}
