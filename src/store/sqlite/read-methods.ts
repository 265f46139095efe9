// The sqlite store's read methods: each a promise over a synchronous read of the in-memory database
// (queries.ts), apart from the store's lifecycle and writes (index.ts).

import type { Artifact, Message } from '../../protocol/types.js';
import type {
  AgentReadState,
  AppliedHookRecord,
  PersonReadMarker,
  AgentRecord,
  ArtifactFilter,
  DeliveryQuery,
  DeliveryStats,
  DmFilter,
  DmRecord,
  MemberQuery,
  MessageRecord,
  PageQuery,
  PageResult,
  PairingState,
  RoomFilter,
  RoomRecord,
  StoredEvent,
  ThreadRecord,
  WebhookDelivery,
} from '../types.js';
import type { Db } from './db.js';
import type { SqliteQueries } from './queries.js';
import type { AnyPart, ReadsOf, SqlAll } from '../part.js';
import type { PartStates } from '../intents.js';

export abstract class SqliteReadMethods {
  /** Each part's state (what its ops are decided on) and reads, over this database. */
  private readonly partAdapters: Map<AnyPart, { state: unknown; reads: unknown }>;
  protected readonly partStates: PartStates;

  constructor(
    readonly db: Db,
    protected readonly reads: SqliteQueries,
    readonly parts: readonly AnyPart[],
  ) {
    const all: SqlAll = (sql, params) => db.all(sql, params);
    this.partAdapters = new Map(parts.map((p) => [p, { state: p.sqlite.state(all), reads: p.sqlite.reads(all) }]));
    this.partStates = { parts, state: (p) => this.partAdapters.get(p)!.state };
  }

  get partNames(): string[] {
    return this.parts.map((p) => p.name);
  }

  private readonly roots = new Map<string, number>();

  /** A table's root page (fixed: auto_vacuum is off, so sqlite never moves a root). */
  rootPage(table: string): number | undefined {
    let root = this.roots.get(table);
    if (root === undefined) {
      root = Number(this.db.one("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?", [table])?.[0] ?? 0) || undefined;
      if (root !== undefined) this.roots.set(table, root);
    }
    return root;
  }

  part<P extends AnyPart>(p: P): ReadsOf<P> | undefined {
    return this.partAdapters.get(p)?.reads as ReadsOf<P> | undefined;
  }

  async getRoom(id: string): Promise<RoomRecord | undefined> {
    return this.reads.room(id);
  }

  async listRooms(): Promise<RoomRecord[]> {
    return this.reads.rooms();
  }

  async pageRooms(filter: RoomFilter, q: PageQuery): Promise<PageResult<RoomRecord>> {
    return this.reads.pageRooms(filter, q);
  }

  async conversationsWith(q: MemberQuery): Promise<{ rooms: RoomRecord[]; dms: DmRecord[] }> {
    return this.reads.conversationsWith(q);
  }

  async getAgent(id: string): Promise<AgentRecord | undefined> {
    return this.reads.agent(id);
  }

  async listAgents(): Promise<AgentRecord[]> {
    return this.reads.agents();
  }

  async findAgentsByCredential(credentialKey: string): Promise<AgentRecord[]> {
    return this.reads.agentsByCredential(credentialKey);
  }

  async getMessage(id: string): Promise<MessageRecord | undefined> {
    return this.reads.message(id);
  }

  async listMessages(conv: string, q: PageQuery): Promise<PageResult<Message>> {
    return this.reads.messages(conv, q);
  }

  async getThread(id: string): Promise<ThreadRecord | undefined> {
    return this.reads.thread(id);
  }

  async listThreads(roomId: string, q: PageQuery): Promise<PageResult<ThreadRecord>> {
    return this.reads.threads(roomId, q);
  }

  async getDm(id: string): Promise<DmRecord | undefined> {
    return this.reads.dm(id);
  }

  async listDms(): Promise<DmRecord[]> {
    return this.reads.dms();
  }

  async pageDms(filter: DmFilter, q: PageQuery): Promise<PageResult<DmRecord>> {
    return this.reads.pageDms(filter, q);
  }

  async listArtifacts(filter: ArtifactFilter, q: PageQuery): Promise<PageResult<Artifact>> {
    return this.reads.artifacts(filter, q);
  }

  async getAgentReadState(agentId: string): Promise<AgentReadState | undefined> {
    return this.reads.readState(agentId);
  }

  async messageSeqs(ids: readonly string[]): Promise<Map<string, number>> {
    return this.reads.messageSeqs(ids);
  }

  async getPairingState(pairingId: string): Promise<PairingState | undefined> {
    return this.reads.pairing(pairingId);
  }

  async webhookCursor(webhookId: string): Promise<number | undefined> {
    const r = this.db.one('SELECT seq FROM webhook_cursors WHERE id = ?', [webhookId]);
    return r ? Number(r[0]) : undefined;
  }

  async webhookDeliveries(q: DeliveryQuery): Promise<WebhookDelivery[]> {
    const where = ['webhook_id = ?'];
    const params: (string | number)[] = [q.webhook_id];
    if (q.status !== undefined) {
      where.push('status = ?');
      params.push(q.status);
    }
    if (q.id !== undefined) {
      where.push('id = ?');
      params.push(q.id);
    }
    if (q.due_by !== undefined) {
      where.push('next_attempt_at <= ?');
      params.push(q.due_by);
    }
    const dir = q.order === 'newest' ? 'DESC' : 'ASC';
    // The due read walks webhook_deliveries_due (webhook_id, status, next_attempt_at, seq, id) in order.
    const order = q.order === 'due' ? 'next_attempt_at ASC, seq ASC, id ASC' : `seq ${dir}, id ${dir}`;
    params.push(q.limit);
    return this.db.bodies(`SELECT body FROM webhook_deliveries WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?`, params);
  }

  async webhookDeliveryStats(webhookId: string): Promise<DeliveryStats> {
    // Counts over the (webhook_id, status, ...) indexes; each time is the first entry of one.
    const count = (status: string) =>
      Number(this.db.one('SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ? AND status = ?', [webhookId, status])?.[0] ?? 0);
    const next = this.db.one(
      "SELECT next_attempt_at FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' ORDER BY next_attempt_at LIMIT 1",
      [webhookId],
    )?.[0];
    // Deliveries are queued in seq order as they are created: the first pending by seq is the oldest.
    const [first] = this.db.bodies<WebhookDelivery>(
      "SELECT body FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' ORDER BY seq, id LIMIT 1",
      [webhookId],
    );
    return {
      pending: count('pending'),
      dead: count('dead'),
      ...(typeof next === 'string' ? { next_attempt_at: next } : {}),
      ...(first ? { oldest_pending_at: first.created_at } : {}),
    };
  }

  async appliedHooks(): Promise<AppliedHookRecord[]> {
    return this.db
      .all('SELECT kind, id, body, applied_at FROM applied_hooks ORDER BY kind, id', [])
      .map((r) => ({ kind: r[0] as AppliedHookRecord['kind'], id: String(r[1]), body: String(r[2]), applied_at: String(r[3]) }));
  }

  async personReadMarkers(person: string): Promise<PersonReadMarker[]> {
    return this.db
      .all('SELECT conv, message_id, at FROM person_read WHERE person = ?', [person])
      .map(([conv, message_id, at]) => ({ conv: String(conv), message_id: String(message_id), at: String(at) }));
  }

  async eventsAfter(seq: number, limit: number): Promise<StoredEvent[]> {
    return this.reads.eventsAfter(seq, limit);
  }
}
