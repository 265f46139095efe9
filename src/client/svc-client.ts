// The typed client of the spec: one method per HTTP endpoint, shapes from src/protocol/types.ts.
// Every failure is a ClientError whose message is one line an operator can act on. The package's
// face is index.ts; the attachment (attach.ts) builds on this client. Requests go out through
// http-call.ts (node:http, for the CLI's start-up time).
import type {
  AgentRegistration,
  AgentSummary,
  ApplyRequest,
  ApplyResponse,
  DirectConversation,
  Message,
  MessageReceipts,
  MessageVersions,
  NetworkDocument,
  Part,
  Reader,
  RemovedResponse,
  ReactionResult,
  Room,
  SendRequest,
  SendResponse,
  Thread,
} from '../protocol/types.js';
import type { WebhookDeliveryView, WebhookList } from '../protocol/webhooks.js';
import type { OAuthGrantList, OAuthGrantRevoked } from '../protocol/oauth-grants.js';
import type { BackupManifest } from '../protocol/backup.js';
import type { DeliveryStatus } from '../protocol/delivery.js';
import { ClientError, responseError, transportError, type CallContext } from './errors.js';
import type {
  ArtifactQuery,
  CreateRoomRequest,
  EditBody,
  EditOptions,
  ListQuery,
  MembersRequest,
  RegisterAgentRequest,
  SearchParams,
} from './requests.js';
import type { Readable } from 'node:stream';
import { exchange, openStream } from './http-call.js';
import { followEvents, type EventFollower, type FollowOptions } from './events.js';
import { FileTransfers } from './files.js';
import type { AgentList, ArtifactList, DmList, MessagePage, PairingList, RoomList, SearchPage, ThreadList } from './list-pages.js';

export type * from './requests.js';
export type * from './list-pages.js';

export interface ClientOptions {
  /** Base URL of the server, e.g. http://127.0.0.1:8787 (a trailing slash is fine). */
  url: string;
  /** Bearer token sent on every call except health checks. */
  token?: string;
  /** Per-call limit for connecting and for the response headers (ms). */
  timeoutMs?: number;
  /** The command that starts this server, named when nothing answers (default `svc serve`). */
  startCommand?: string;
}

type Query = Record<string, string | number | undefined>;

export class SvcClient {
  readonly baseUrl: string;
  readonly #token: string | undefined;
  readonly #timeoutMs: number;
  readonly #start: string | undefined;

  constructor(opts: ClientOptions) {
    this.baseUrl = opts.url.replace(/\/+$/, '');
    this.#token = opts.token;
    this.#timeoutMs = opts.timeoutMs ?? 15_000;
    this.#start = opts.startCommand;
  }

  get hasToken(): boolean {
    return this.#token !== undefined;
  }

  /**
   * Kept for callers of the client library: connections are the runtime's shared keep-alive
   * sockets, which never hold a process open, so there is nothing to release.
   */
  async close(): Promise<void> {}

  // Health and network
  /** GET /healthz (no credential). */
  health(): Promise<{ status: string }> {
    return this.#json('GET', '/healthz', { auth: false });
  }
  /** GET /readyz (no credential). */
  ready(): Promise<{
    status: string;
    store?: { backend: string; page_tracking: boolean; on_demand_reads: boolean; problem?: string; redaction_scrub?: 'pending' | 'done' };
  }> {
    return this.#json('GET', '/readyz', { auth: false });
  }
  /** GET /metrics: Prometheus text. */
  metrics(): Promise<string> {
    return this.#call('GET', '/metrics', {}).then((r) => r.text);
  }
  /** GET /v1/network. */
  network(): Promise<NetworkDocument> {
    return this.#json('GET', '/v1/network');
  }

  // Rooms
  /** GET /v1/rooms. */
  listRooms(q: ListQuery = {}): Promise<RoomList> {
    return this.#json('GET', '/v1/rooms', { query: { ...q } });
  }
  /** GET /v1/rooms/{id}. */
  getRoom(id: string): Promise<Room> {
    return this.#json('GET', `/v1/rooms/${seg(id)}`);
  }
  /** POST /v1/rooms (admin). */
  createRoom(body: CreateRoomRequest): Promise<Room> {
    return this.#json('POST', '/v1/rooms', { body });
  }
  /** DELETE /v1/rooms/{id} (admin, soft). */
  deleteRoom(id: string): Promise<RemovedResponse> {
    return this.#json('DELETE', `/v1/rooms/${seg(id)}`);
  }
  /** PATCH /v1/rooms/{id}/members (admin). */
  updateMembers(id: string, body: MembersRequest): Promise<Room> {
    return this.#json('PATCH', `/v1/rooms/${seg(id)}/members`, { body });
  }
  /** GET /v1/rooms/{id}/messages. */
  roomMessages(id: string, q: ListQuery = {}): Promise<MessagePage> {
    return this.#json('GET', `/v1/rooms/${seg(id)}/messages`, { query: { ...q } });
  }
  /** GET /v1/rooms/{id}/threads. */
  roomThreads(id: string, q: ListQuery = {}): Promise<ThreadList> {
    return this.#json('GET', `/v1/rooms/${seg(id)}/threads`, { query: { ...q } });
  }

  // Threads and DMs
  /** GET /v1/threads/{id}. */
  getThread(id: string): Promise<Thread> {
    return this.#json('GET', `/v1/threads/${seg(id)}`);
  }
  /** GET /v1/threads/{id}/messages. */
  threadMessages(id: string, q: ListQuery = {}): Promise<MessagePage> {
    return this.#json('GET', `/v1/threads/${seg(id)}/messages`, { query: { ...q } });
  }
  /** GET /v1/dms. */
  listDms(q: ListQuery = {}): Promise<DmList> {
    return this.#json('GET', '/v1/dms', { query: { ...q } });
  }
  /** GET /v1/dms/{id}. */
  getDm(id: string): Promise<DirectConversation> {
    return this.#json('GET', `/v1/dms/${seg(id)}`);
  }
  /** GET /v1/dms/{id}/messages. */
  dmMessages(id: string, q: ListQuery = {}): Promise<MessagePage> {
    return this.#json('GET', `/v1/dms/${seg(id)}/messages`, { query: { ...q } });
  }
  /** GET /v1/artifacts (one of room_id, thread_id, dm_id is required). */
  listArtifacts(q: ArtifactQuery): Promise<ArtifactList> {
    return this.#json('GET', '/v1/artifacts', { query: { ...q } });
  }

  /** GET /v1/search: matching messages the caller may read, newest first. */
  search(q: SearchParams): Promise<SearchPage> {
    return this.#json('GET', '/v1/search', { query: { ...q } });
  }

  // Messages
  /** GET /v1/messages/{id}/receipts: for the sender and admins. */
  receipts(id: string): Promise<MessageReceipts> {
    return this.#json('GET', `/v1/messages/${seg(id)}/receipts`);
  }
  /** POST /v1/messages/{id}/read: marks it read by the caller's agent (or whom `as` names). */
  markRead(id: string, as?: string): Promise<{ message_id: string; reader: Reader }> {
    return this.#json('POST', `/v1/messages/${seg(id)}/read`, { query: as ? { as } : {} });
  }
  /** POST /v1/messages. */
  send(body: SendRequest): Promise<SendResponse> {
    return this.#json('POST', '/v1/messages', { body });
  }

  /** PUT (add) or DELETE (remove) /v1/messages/{id}/reactions/{emoji}; `from` absent: an agent token's own agent. */
  react(messageId: string, emoji: string, o: { remove?: boolean; from?: SendRequest['from'] } = {}): Promise<ReactionResult> {
    const path = `/v1/messages/${encodeURIComponent(messageId)}/reactions/${encodeURIComponent(emoji)}`;
    return this.#json(o.remove ? 'DELETE' : 'PUT', path, o.from ? { body: { from: o.from } } : {});
  }

  /**
   * PATCH /v1/messages/{id}: new content (`text` is one text part); answers the edited message.
   * `from` absent: an agent token's own agent, or the message's sender or an operator for a static token.
   */
  editMessage(id: string, o: EditOptions): Promise<Message> {
    return this.#json('PATCH', `/v1/messages/${seg(id)}`, { body: editBody(o) });
  }
  /** DELETE /v1/messages/{id}: leaves a tombstone (answered); `from` as for editMessage. */
  deleteMessage(id: string, o: { from?: SendRequest['from'] } = {}): Promise<Message> {
    return this.#json('DELETE', `/v1/messages/${seg(id)}`, o.from ? { body: { from: o.from } } : {});
  }
  /** POST /v1/messages/{id}/redact (admin): leaves a tombstone (answered) and scrubs the content from the store. */
  redactMessage(id: string): Promise<Message> {
    return this.#json('POST', `/v1/messages/${seg(id)}/redact`);
  }
  /** GET /v1/messages/{id}/versions: its earlier versions, oldest first, and the current version number. */
  messageVersions(id: string): Promise<MessageVersions> {
    return this.#json('GET', `/v1/messages/${seg(id)}/versions`);
  }

  // Agents
  /** GET /v1/agents. */
  listAgents(q: ListQuery = {}): Promise<AgentList> {
    return this.#json('GET', '/v1/agents', { query: { ...q } });
  }
  /** GET /v1/agents/{id}. */
  getAgent(id: string): Promise<AgentSummary> {
    return this.#json('GET', `/v1/agents/${seg(id)}`);
  }
  /** GET /v1/agents/{id}/delivery: its attachment, wakes not acknowledged, last ACK and read. */
  agentDelivery(id: string): Promise<DeliveryStatus> {
    return this.#json('GET', `/v1/agents/${seg(id)}/delivery`);
  }
  /** POST /v1/agents/register. */
  registerAgent(body: RegisterAgentRequest): Promise<AgentRegistration> {
    return this.#json('POST', '/v1/agents/register', { body });
  }
  /** DELETE /v1/agents/{id} (admin, soft). */
  deleteAgent(id: string): Promise<RemovedResponse> {
    return this.#json('DELETE', `/v1/agents/${seg(id)}`);
  }

  // Operator
  /** POST /v1/apply (admin). */
  apply(body: ApplyRequest): Promise<ApplyResponse> {
    return this.#json('POST', '/v1/apply', { body });
  }

  /** POST /v1/backup (admin): an online backup of the sqlite store into `dir` on the server's machine. */
  backup(dir: string, timeoutMs = 60 * 60_000): Promise<BackupManifest> {
    return this.#json('POST', '/v1/backup', { body: { dir }, timeoutMs });
  }

  /** GET /v1/export (admin): the network as JSON Lines (docs/export.md), a body to read as it comes. */
  async exportStream(o: { withSecrets?: boolean; withFiles?: boolean; timeoutMs?: number } = {}): Promise<Readable> {
    const query = [...(o.withSecrets ? ['with_secrets=true'] : []), ...(o.withFiles ? ['with_files=true'] : [])].join('&');
    const path = `/v1/export${query ? `?${query}` : ''}`;
    const ctx: CallContext = {
      method: 'GET',
      path,
      baseUrl: this.baseUrl,
      hasToken: this.hasToken,
      ...(this.#start ? { start: this.#start } : {}),
    };
    const headers: Record<string, string> = { accept: 'application/x-ndjson' };
    if (this.#token !== undefined) headers.authorization = `Bearer ${this.#token}`;
    let r;
    try {
      r = await openStream(this.baseUrl + path, { headers, timeoutMs: o.timeoutMs ?? 5 * 60_000 });
    } catch (err) {
      throw transportError(err, ctx);
    }
    if (r.status >= 200 && r.status <= 299) return r.body;
    const chunks: Buffer[] = [];
    for await (const c of r.body) chunks.push(c as Buffer);
    throw responseError(r.status, Buffer.concat(chunks).toString('utf8'), ctx, r.requestId);
  }

  /** POST /console/api/sign-in-codes (admin): a one-time console sign-in link. */
  consoleSignInLink(ttlSeconds?: number): Promise<{ url: string; expires_at: string }> {
    return this.#json('POST', '/console/api/sign-in-codes', { body: ttlSeconds !== undefined ? { ttl_seconds: ttlSeconds } : {} });
  }

  // Pairings
  /** GET /v1/pairings. */
  listPairings(q: ListQuery = {}): Promise<PairingList> {
    return this.#json('GET', '/v1/pairings', { query: { ...q } });
  }
  /** GET /v1/pairings/{id}/network. */
  pairingNetwork(id: string): Promise<NetworkDocument> {
    return this.#json('GET', `/v1/pairings/${seg(id)}/network`);
  }
  /** GET /v1/pairings/{id}/rooms. */
  pairingRooms(id: string, q: ListQuery = {}): Promise<RoomList> {
    return this.#json('GET', `/v1/pairings/${seg(id)}/rooms`, { query: { ...q } });
  }
  /** GET /v1/pairings/{id}/agents. */
  pairingAgents(id: string, q: ListQuery = {}): Promise<AgentList> {
    return this.#json('GET', `/v1/pairings/${seg(id)}/agents`, { query: { ...q } });
  }

  // Webhooks (#28 parts 3 and 4)
  /** GET /v1/webhooks (admin). */
  listWebhooks(): Promise<WebhookList> {
    return this.#json('GET', '/v1/webhooks');
  }
  /** GET /v1/webhooks/{id}/deliveries (admin), newest first. */
  webhookDeliveries(id: string, q: { status?: string; limit?: number } = {}): Promise<{ deliveries: WebhookDeliveryView[] }> {
    return this.#json('GET', `/v1/webhooks/${seg(id)}/deliveries`, { query: { ...q } });
  }
  /** POST /v1/webhooks/{id}/retry (admin): dead deliveries (one, or all) queued again. */
  retryWebhook(id: string, deliveryId?: string): Promise<{ retried: string[] }> {
    return this.#json('POST', `/v1/webhooks/${seg(id)}/retry`, { query: deliveryId ? { delivery_id: deliveryId } : {} });
  }
  /** POST /v1/webhooks/{id}/test (admin): a webhook.test delivery queued. */
  testWebhook(id: string): Promise<{ delivery: WebhookDeliveryView }> {
    return this.#json('POST', `/v1/webhooks/${seg(id)}/test`);
  }

  // OAuth grants (#27 part 2)
  /** GET /v1/oauth/grants (admin). */
  listOAuthGrants(): Promise<OAuthGrantList> {
    return this.#json('GET', '/v1/oauth/grants');
  }
  /** DELETE /v1/oauth/grants/{id} (admin): the grant and every token of it deleted. */
  revokeOAuthGrant(id: string): Promise<OAuthGrantRevoked> {
    return this.#json('DELETE', `/v1/oauth/grants/${seg(id)}`);
  }

  /** POST /v1/files and GET /v1/files/{id}, streamed (files.ts). */
  get files(): FileTransfers {
    return new FileTransfers({ baseUrl: this.baseUrl, token: this.#token, start: this.#start, timeoutMs: this.#timeoutMs });
  }

  // Events
  /** Follows GET /v1/events/stream (SSE), reconnecting with Last-Event-ID after a drop. */
  followEvents(opts: FollowOptions): EventFollower {
    return followEvents(`${this.baseUrl}/v1/events/stream`, this.#token, opts);
  }

  async #json<T>(method: string, path: string, o: { query?: Query; body?: unknown; auth?: boolean; timeoutMs?: number } = {}): Promise<T> {
    const r = await this.#call(method, path, o);
    try {
      return JSON.parse(r.text) as T;
    } catch {
      throw new ClientError(
        `${method} ${r.ctx.path}: the answer is not JSON: is ${this.baseUrl} an svc server? (check --url / SVC_URL)`,
        r.status,
        'bad_response',
      );
    }
  }

  async #call(
    method: string,
    path: string,
    o: { query?: Query; body?: unknown; auth?: boolean; timeoutMs?: number },
  ): Promise<{ status: number; text: string; ctx: CallContext }> {
    const full = path + queryString(o.query);
    const ctx: CallContext = {
      method,
      path: full,
      baseUrl: this.baseUrl,
      hasToken: this.hasToken,
      ...(this.#start ? { start: this.#start } : {}),
    };
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#token !== undefined && o.auth !== false) headers.authorization = `Bearer ${this.#token}`;
    let body: string | undefined;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    }
    let status: number;
    let text: string;
    let requestId: string | undefined;
    try {
      ({ status, requestId, text } = await exchange(this.baseUrl + full, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        timeoutMs: o.timeoutMs ?? this.#timeoutMs,
      }));
    } catch (err) {
      throw transportError(err, ctx);
    }
    if (status < 200 || status > 299) throw responseError(status, text, ctx, requestId);
    return { status, text, ctx };
  }
}

/** The PATCH /v1/messages/{id} body of editMessage's options: `text` becomes one text part. */
export function editBody(o: EditOptions): EditBody {
  const { text, parts, ...rest } = o;
  const given: Part[] = parts ?? (text !== undefined ? [{ kind: 'text', text }] : []);
  return { ...rest, parts: given };
}

/** A path segment: ids are opaque, so escape anything that would change the path. */
const seg = (id: string) => encodeURIComponent(id);

function queryString(q: Query | undefined): string {
  if (!q) return '';
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}
