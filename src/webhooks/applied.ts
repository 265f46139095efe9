// Hooks declared by `svc apply` (#28): checked like svc.yaml's, kept in the store (so every
// instance on it and a restart see them) and merged with svc.yaml's. svc.yaml wins: an id it
// declares cannot be applied differently (409), and one it later declares hides the applied one.
// Secrets arrive resolved in the admin-only apply body and are never answered back.

import { checkUniqueIds } from '../config/sections.js';
import { checkWebhook, type InboundHookConfig, secretProblem, type WebhookConfig } from '../config/webhooks.js';
import { AppError, badRequest } from '../errors.js';
import type { ApplyResponse, ApplyRequest } from '../protocol/types.js';
import type { DeclaredInboundHook, DeclaredWebhook, HookSource } from '../protocol/webhooks.js';
import type { AppliedHookRecord } from '../store/webhooks/applied/records.js';
import type { Store } from '../store/types.js';
import { appliedOf } from './stored.js';

type Change = NonNullable<ApplyResponse['changes']>[number];
type Kind = AppliedHookRecord['kind'];

/** A declared webhook with svc.yaml's defaults (the request schema fills them too). */
export function webhookOf(d: DeclaredWebhook): WebhookConfig {
  return {
    id: d.id,
    url: d.url,
    events: d.events ?? ['message.created'],
    ...(d.rooms ? { rooms: d.rooms } : {}),
    secret_env: d.secret_env ?? '',
    secret: d.secret,
    allow_private_network: d.allow_private_network ?? false,
    timeout_ms: d.timeout_ms ?? 10_000,
    retry: { window_ms: d.retry?.window_ms ?? 86_400_000, initial_ms: d.retry?.initial_ms ?? 5_000, max_ms: d.retry?.max_ms ?? 3_600_000 },
  };
}

export function inboundOf(d: DeclaredInboundHook): InboundHookConfig {
  return {
    id: d.id,
    room: d.room,
    sender: d.sender,
    ...(d.sender_name !== undefined ? { sender_name: d.sender_name } : {}),
    secret_env: d.secret_env ?? '',
    secret: d.secret,
  };
}

/** What makes two declarations the same hook (the variable a secret was read from does not). */
function sameWebhook(a: WebhookConfig, b: WebhookConfig): boolean {
  const k = (w: WebhookConfig) =>
    JSON.stringify([
      w.url,
      w.events,
      w.rooms ?? null,
      w.secret,
      w.allow_private_network,
      w.timeout_ms,
      w.retry.window_ms,
      w.retry.initial_ms,
      w.retry.max_ms,
    ]);
  return k(a) === k(b);
}

function sameInbound(a: InboundHookConfig, b: InboundHookConfig): boolean {
  const k = (h: InboundHookConfig) => JSON.stringify([h.room, h.sender, h.sender_name ?? null, h.secret]);
  return k(a) === k(b);
}

export interface FileHooks {
  webhooks: readonly WebhookConfig[];
  inbound_hooks: readonly InboundHookConfig[];
}

/** The applied hooks of one server, as last read from the store, merged with svc.yaml's. */
export class AppliedHooks {
  private webhooks: WebhookConfig[] = [];
  private inbound: InboundHookConfig[] = [];
  /** The store's rows as last read: a refresh that reads the same changes nothing. */
  private seen = '';

  constructor(
    private readonly store: () => Store,
    private readonly file: () => FileHooks,
    /** Called when the applied hooks read from the store changed. */
    private readonly changed: () => void,
  ) {}

  /** Reads the store again; calls `changed` when what it holds differs from the last read. */
  async refresh(): Promise<void> {
    const rows = await appliedOf(this.store()).list();
    const key = JSON.stringify(rows);
    if (key === this.seen) return;
    this.seen = key;
    const parse = <T>(kind: Kind) => rows.filter((r) => r.kind === kind).map((r) => JSON.parse(r.body) as T);
    this.webhooks = parse<WebhookConfig>('webhook');
    this.inbound = parse<InboundHookConfig>('inbound_hook');
    this.changed();
  }

  /** svc.yaml's webhooks, then the applied ones whose id it does not declare. */
  allWebhooks(): WebhookConfig[] {
    const own = this.file().webhooks;
    return [...own, ...this.webhooks.filter((w) => !own.some((o) => o.id === w.id))];
  }

  allInbound(): InboundHookConfig[] {
    const own = this.file().inbound_hooks;
    return [...own, ...this.inbound.filter((h) => !own.some((o) => o.id === h.id))];
  }

  sourceOf(kind: Kind, id: string): HookSource {
    const own = kind === 'webhook' ? this.file().webhooks : this.file().inbound_hooks;
    return own.some((h) => h.id === id) ? 'config' : 'apply';
  }

  /** Refuses a bad declaration before anything of the apply is written: 400 naming the field, 409 for an id svc.yaml declares otherwise. */
  async check(req: ApplyRequest): Promise<void> {
    const fail = (line: string): never => {
      throw badRequest(line);
    };
    const file = this.file();
    (req.webhooks ?? []).forEach((d, i) => {
      const at = `body.webhooks[${i}]`;
      const w = webhookOf(d);
      checkWebhook(w, at, fail);
      const problem = secretProblem(d.secret);
      if (problem) fail(`${at}.secret: ${problem}`);
      const own = file.webhooks.find((o) => o.id === d.id);
      if (own && !sameWebhook(own, w)) throw declaredInFile(`${at}.id`, 'webhook', d.id);
    });
    (req.inbound_hooks ?? []).forEach((d, i) => {
      const at = `body.inbound_hooks[${i}]`;
      const problem = secretProblem(d.secret);
      if (problem) fail(`${at}.secret: ${problem}`);
      const own = file.inbound_hooks.find((o) => o.id === d.id);
      if (own && !sameInbound(own, inboundOf(d))) throw declaredInFile(`${at}.id`, 'inbound hook', d.id);
    });
    checkUniqueIds(
      (req.webhooks ?? []).map((w) => w.id),
      'body.webhooks',
      fail,
    );
    checkUniqueIds(
      (req.inbound_hooks ?? []).map((h) => h.id),
      'body.inbound_hooks',
      fail,
    );
  }

  /** Stores the declarations `check` accepted (created or updated; svc.yaml's own are left to it). */
  async apply(req: ApplyRequest): Promise<Change[]> {
    const stored = new Map((await appliedOf(this.store()).list()).map((r) => [`${r.kind}\n${r.id}`, r.body]));
    const at = new Date().toISOString();
    const changes: Change[] = [];
    const put: AppliedHookRecord[] = [];
    const declare = (kind: Kind, id: string, resolved: WebhookConfig | InboundHookConfig) => {
      if (this.sourceOf(kind, id) === 'config') {
        changes.push({ kind, id, action: 'unchanged' });
        return;
      }
      const body = JSON.stringify(resolved);
      const prev = stored.get(`${kind}\n${id}`);
      if (prev === body) changes.push({ kind, id, action: 'unchanged' });
      else {
        put.push({ kind, id, body, applied_at: at });
        changes.push({ kind, id, action: prev === undefined ? 'created' : 'updated' });
      }
    };
    for (const d of req.webhooks ?? []) declare('webhook', d.id, webhookOf(d));
    for (const d of req.inbound_hooks ?? []) declare('inbound_hook', d.id, inboundOf(d));
    if (put.length > 0) await this.store().write([{ op: 'hooks.apply', put }]);
    await this.refresh();
    return changes;
  }
}

function declaredInFile(at: string, what: string, id: string): AppError {
  return new AppError(
    'conflict',
    `${at}: ${what} ${id} is declared differently in the server's svc.yaml, which wins; change it there, or apply it under another id`,
  );
}
