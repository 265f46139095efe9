// The sqlite store's read methods: each a promise over a synchronous read of the in-memory database
// (queries.ts), and the reads a write is decided on, apart from the store's lifecycle and writes (index.ts).

import type { Artifact, Message, MessageVersion } from '../../protocol/types.js';
import type {
  AgentReadState,
  AgentRecord,
  ArtifactFilter,
  DmFilter,
  DmRecord,
  ExpiredQuery,
  MemberQuery,
  MessageRecord,
  PageQuery,
  PageResult,
  PairingState,
  RoomFilter,
  RoomRecord,
  StoredEvent,
  ThreadRecord,
  Decide,
  DecisionReads,
  WriteOp,
  WriteResult,
} from '../types.js';
import { decideOn, freshReads } from '../decide.js';
import type { Db } from './db.js';
import { expiredMessages } from './retention.js';
import { KeepCuts } from './keep-cuts.js';
import type { SqliteQueries } from './queries.js';
import type { AnyPart, ReadsOf, SqlAll } from '../part.js';
import type { PartStates } from '../intents.js';

export abstract class SqliteReadMethods {
  /** Each part's state (what its ops are decided on) and reads, over this database, made on first use. */
  private readonly partAdapters = new Map<AnyPart, { state: unknown; reads: unknown }>();
  protected readonly partStates: PartStates;
  /** Where each conversation's newest `keep` begin (retention's max_messages). */
  protected readonly cuts: KeepCuts;

  /**
   * `parts` is the store's own list: a replay adds to it the parts whose effects its journal holds
   * (engine/recovery.ts), and every user of the list sees them.
   */
  constructor(
    readonly db: Db,
    protected readonly reads: SqliteQueries,
    readonly parts: AnyPart[],
  ) {
    this.partStates = { parts, state: (p) => this.adapter(p).state };
    this.cuts = new KeepCuts(db);
  }

  private adapter(p: AnyPart): { state: unknown; reads: unknown } {
    let a = this.partAdapters.get(p);
    if (!a) {
      const all: SqlAll = (sql, params) => this.db.all(sql, params);
      this.partAdapters.set(p, (a = { state: p.sqlite.state(all), reads: p.sqlite.reads(all) }));
    }
    return a;
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
    return (this.parts.includes(p) ? this.adapter(p).reads : undefined) as ReadsOf<P> | undefined;
  }

  async getRoom(id: string): Promise<RoomRecord | undefined> {
    return this.reads.roomCopy(id);
  }

  private readonly decisionReads: DecisionReads = {
    ...freshReads(this),
    room: async (id) => this.reads.room(id),
    agent: async (id) => this.reads.agent(id),
  };

  /** Decides on the rooms and agents the store keeps, frozen and shared (queries.ts): no copy per send. */
  decide<T>(decide: Decide<T>, write: (ops: WriteOp[]) => Promise<WriteResult>): Promise<T> {
    return decideOn(this.decisionReads, decide, write);
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
    return this.reads.agentCopy(id);
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

  async expiredMessages(q: ExpiredQuery): Promise<string[]> {
    const cut = q.keep === undefined ? 0 : await this.cuts.cut(q.conv, Math.max(0, Math.floor(q.keep)));
    return expiredMessages(this.db, q, cut);
  }

  async messageVersions(id: string): Promise<MessageVersion[]> {
    return this.reads.versions(id);
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

  async eventsAfter(seq: number, limit: number): Promise<StoredEvent[]> {
    return this.reads.eventsAfter(seq, limit);
  }
}
