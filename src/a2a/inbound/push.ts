// Push-notification configs of A2A tasks and their delivery. The configs of a task are one row of
// the store's key/value table (kind `a2a.push`, by task id, with the task's owner and agent), so any
// instance finds them. Each change of a task is serialized as the SDK does (V1 StreamResponse JSON)
// and POSTed (src/http/outbound-post.ts: its time bound and the private-address guard every
// outbound request passes), signed per Standard Webhooks with the config's token as the secret (the
// webhooks feature's signer, src/webhooks/signing.ts), the token also in X-A2A-Notification-Token
// as A2A says.
// A failed attempt is tried again a few times in this process; there is no durable outbox for
// them (a restart forgets what was not delivered; the task itself is in the store).

import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { TaskPushNotificationConfig, type StreamResponse, type Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import {
  type PushNotificationSender,
  type PushNotificationStore,
  type ServerCallContext,
  V1PushNotificationSerializer,
} from '@a2a-js/sdk/server';
import type { KvTable } from '../../store/types.js';
import { postJson } from '../../http/outbound-post.js';
import { signedHeaders, USER_AGENT, webhookOf } from '../../webhooks/signing.js';
import { callerOf } from './context.js';

export const PUSH_KIND = 'a2a.push';
/** Configs one task may have. */
export const MAX_PUSH_CONFIGS = 10;
/** Attempts per notification, and the pause before each retry (ms). */
const RETRY_MS = [1_000, 5_000];
const TIMEOUT_MS = 10_000;

interface PushRow {
  owner: string;
  agent: string;
  configs: unknown[];
}

const DAY_MS = 86_400_000;

export interface PushSettings {
  kv(): KvTable;
  days(): number;
  allowPrivate(): boolean;
  log(level: 'warn', msg: string, fields: Record<string, unknown>): void;
}

export class KvPushStore implements PushNotificationStore {
  constructor(private readonly s: PushSettings) {}

  private async row(taskId: string): Promise<PushRow | undefined> {
    const e = await this.s.kv().get(PUSH_KIND, taskId);
    if (!e) return undefined;
    try {
      return JSON.parse(e.value) as PushRow;
    } catch {
      return undefined;
    }
  }

  /** The configs of a task, whoever asks (the sender runs for the task's own changes). */
  async configsOf(taskId: string): Promise<TaskPushNotificationConfig[]> {
    return ((await this.row(taskId))?.configs ?? []).map((c) => TaskPushNotificationConfig.fromJSON(c));
  }

  async save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    const { owner, agent } = callerOf(context);
    let u: URL | undefined;
    try {
      u = new URL(config.url);
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:')) throw new RequestMalformedError('url: must be an http(s) URL');
    if (!config.token) throw new RequestMalformedError('token: required (notifications are signed with it, Standard Webhooks)');
    if (!config.id) config.id = randomUUID();
    const cur = await this.row(taskId);
    const others = (cur?.configs ?? []).filter((c) => TaskPushNotificationConfig.fromJSON(c).id !== config.id);
    if (others.length >= MAX_PUSH_CONFIGS)
      throw new RequestMalformedError(`a task has at most ${MAX_PUSH_CONFIGS} push-notification configs`);
    const row: PushRow = { owner, agent, configs: [...others, TaskPushNotificationConfig.toJSON(config)] };
    await this.s.kv().put({ kind: PUSH_KIND, id: taskId, value: JSON.stringify(row), expires_at: Date.now() + this.s.days() * DAY_MS });
  }

  async load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    const { owner, agent } = callerOf(context);
    const row = await this.row(taskId);
    if (!row || row.owner !== owner || row.agent !== agent) return [];
    return row.configs.map((c) => TaskPushNotificationConfig.fromJSON(c));
  }

  async delete(taskId: string, context: ServerCallContext, configId?: string): Promise<void> {
    const { owner, agent } = callerOf(context);
    const row = await this.row(taskId);
    if (!row || row.owner !== owner || row.agent !== agent) return;
    const id = configId ?? taskId;
    const configs = row.configs.filter((c) => TaskPushNotificationConfig.fromJSON(c).id !== id);
    await this.s
      .kv()
      .put({ kind: PUSH_KIND, id: taskId, value: JSON.stringify({ ...row, configs }), expires_at: Date.now() + this.s.days() * DAY_MS });
  }
}

const taskIdOf = (r: StreamResponse): string => {
  const p = r.payload;
  if (!p) return '';
  return p.$case === 'task' ? p.value.id : p.value.taskId;
};

export class SignedPushSender implements PushNotificationSender {
  private readonly serializer = new V1PushNotificationSerializer();
  /** Each task's notifications go out in order: the last one sent waits for the one before. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly store: KvPushStore,
    private readonly s: PushSettings,
  ) {}

  send(response: StreamResponse, _context: ServerCallContext, task?: Task): Promise<void> {
    const taskId = taskIdOf(response);
    if (!taskId) return Promise.resolve();
    const prev = this.chains.get(taskId) ?? Promise.resolve();
    const next = prev.then(() => this.dispatch(taskId, response, task)).catch(() => undefined);
    this.chains.set(taskId, next);
    void next.finally(() => {
      if (this.chains.get(taskId) === next) this.chains.delete(taskId);
    });
    return next;
  }

  private async dispatch(taskId: string, response: StreamResponse, task: Task | undefined): Promise<void> {
    const configs = await this.store.configsOf(taskId);
    if (configs.length === 0) return;
    const { body, contentType } = this.serializer.serialize(response, task);
    await Promise.all(configs.map((c) => this.deliver(c, body, contentType)));
  }

  private async deliver(c: TaskPushNotificationConfig, body: string, contentType: string): Promise<void> {
    const id = `a2a_${randomUUID()}`;
    const signer = webhookOf(c.token);
    const auth: Record<string, string> =
      c.authentication?.scheme && c.authentication.credentials
        ? { authorization: `${c.authentication.scheme} ${c.authentication.credentials}` }
        : {};
    for (let attempt = 0; ; attempt++) {
      const at = new Date();
      const r = await postJson(
        c.url,
        {
          'content-type': contentType,
          'user-agent': USER_AGENT,
          'x-a2a-notification-token': c.token,
          ...auth,
          ...signedHeaders(signer, id, at, body),
        },
        body,
        { timeoutMs: TIMEOUT_MS, allowPrivate: this.s.allowPrivate() },
      );
      if (r.ok) return;
      const pause = RETRY_MS[attempt];
      if (pause === undefined) {
        this.s.log('warn', 'a2a: a push notification was not delivered', { task: c.taskId, error: r.error ?? `status ${r.status}` });
        return;
      }
      await sleep(pause, undefined, { ref: false });
    }
  }
}
