// The Postgres backend: several `svc serve` processes on one schema are one network. Writes are
// transactions (write.ts) that commit before they resolve; reads query (reads.ts); the event feed
// reads stored events by cursor, woken by LISTEN/NOTIFY (feed.ts); leases are rows with an expiry
// (leases.ts); tentative reads keep the rooms and agents that sends decide on, the writes checking
// their versions (tentative.ts). Each instance registers itself in `instances` so `svc doctor` can
// tell who is up.

import { ALL_PARTS } from '../concerns.js';
import type { AnyPart, ReadsOf } from '../part.js';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Artifact, Message, MessageVersion } from '../../protocol/types.js';
import { DEFAULT_STORE_SCHEMA } from '../../config/types.js';
import { VERSION } from '../../version.js';
import type {
  AgentRecord,
  ArtifactFilter,
  DmFilter,
  DmRecord,
  ExpiredQuery,
  FeedSubscription,
  MessageRecord,
  PageQuery,
  PageResult,
  PairingState,
  AgentReadState,
  MemberQuery,
  RoomFilter,
  RoomRecord,
  SchemaChange,
  Decide,
  Decision,
  DecisionReads,
  Store,
  StoreSnapshot,
  StoreStats,
  StoredEvent,
  ThreadRecord,
  WriteOp,
  WriteResult,
} from '../types.js';
import { StoreError } from '../types.js';
import { storeErrorOf } from './errors.js';
import { PgFeed } from './feed.js';
import { PgLeases } from './leases.js';
import { KV_TABLE, PgKv } from '../kv/postgres.js';
import { pgSnapshot } from './snapshot.js';
import { Reads } from './reads.js';
import { migrate } from './schema.js';
import { tablesOf, type Tables } from './tables.js';
import { optimistic, writeBatch } from './write.js';
import { TentativeCache, type Tentative } from './tentative.js';
import { StaleBasis, withDecidedRooms, type BasedInsert, type Basis } from './basis.js';
import { decideOnFreshReads, freshReads } from '../decide.js';
import { FastLane } from './fast-lane.js';
import { searchMessages, type PgSearchQuery } from './search.js';
import { SearchUpkeep } from './search-upkeep.js';

export interface PostgresStoreOptions {
  /** Connection URL; a secret: never logged. */
  url: string;
  /** Schema holding the tables (created and migrated at open). */
  schema?: string;
  /** Most pooled connections (the feed's listening connection is extra). */
  poolSize?: number;
  log?: (msg: string) => void;
  /** The stored concerns it keeps (part.ts; default: all of them). */
  parts?: readonly AnyPart[];
  /** How often the search index's pending list is merged after writes (search-upkeep.ts; tests set it). */
  searchMergeMs?: number;
}

/** How long a write waits for the feed to deliver its events before resolving anyway. */
const FEED_WAIT_MS = 5000;
const HEARTBEAT_MS = 10_000;

/** The process id of a connection's database backend (pg sets it at connect; its types omit it). */
const backendPid = (client: pg.PoolClient): number => (client as unknown as { processID: number }).processID;

/** Opens the store: connects, migrates under an advisory lock, starts the feed. */
export async function openPostgresStore(opts: PostgresStoreOptions): Promise<PostgresStore> {
  const log = opts.log ?? (() => {});
  const schema = opts.schema ?? DEFAULT_STORE_SCHEMA;
  const connection: pg.ClientConfig = { connectionString: opts.url, connectionTimeoutMillis: 5000, application_name: 'svc' };
  const pool = new pg.Pool({ ...connection, max: opts.poolSize ?? 10, idleTimeoutMillis: 30_000 });
  // An idle client whose server went away emits here; unhandled, it would end the process.
  pool.on('error', (err) => log(`store: idle database connection failed: ${err.message}`));
  // A checked-out client whose connection drops between queries emits 'error' too; the query in
  // flight (if any) already fails with it, and the pool discards the client on release.
  // The backends of this pool: their notifications announce this process's own commits (feed.ts).
  const backends = new Set<number>();
  pool.on('connect', (client) => {
    client.on('error', () => {});
    backends.add(backendPid(client));
  });
  pool.on('remove', (client) => backends.delete(backendPid(client)));
  const T = tablesOf(schema);
  const parts = opts.parts ?? ALL_PARTS;
  let schemaChange: SchemaChange | undefined;
  try {
    const client = await pool.connect();
    try {
      let from = 0;
      const applied = await migrate(client, schema, parts, (f, to) => {
        from = f;
        log(
          `store: migrating schema ${schema} from version ${f} to ${to}; an older svc cannot use it afterwards (keep a copy from before the upgrade: pg_dump -n ${schema}, or svc store copy)`,
        );
      });
      if (applied.length > 0) log(`store: migrated schema ${schema} to version ${applied[applied.length - 1]}`);
      if (from > 0 && applied.length > 0) schemaChange = { from, to: applied[applied.length - 1]!, by: VERSION };
    } finally {
      client.release();
    }
    const reads = new Reads(pool, T);
    const feed = new PgFeed({
      read: (after, limit) => reads.feedEventsAfter(after, limit),
      head: await reads.lastEventSeq(),
      connection,
      channel: T.channel,
      log,
      ownBackend: (pid) => backends.has(pid),
    });
    await feed.start();
    const store = new PostgresStore(pool, T, reads, feed, log, parts, new SearchUpkeep(pool, T, log, opts.searchMergeMs));
    if (schemaChange) store.schemaChange = schemaChange;
    await store.register();
    return store;
  } catch (err) {
    await pool.end().catch(() => {});
    const e = storeErrorOf(err);
    if (e instanceof StoreError) throw e;
    throw new StoreError('unavailable', `cannot open the postgres store: ${(err as Error).message}`);
  }
}

export class PostgresStore implements Store {
  /** Each part's reads, made on first use. */
  private readonly partReads = new Map<AnyPart, unknown>();
  readonly backend = 'postgres';
  schemaChange?: SchemaChange;
  readonly leases: PgLeases;
  readonly kv: PgKv;
  /** This process's row in `instances`. */
  readonly instanceId = randomUUID();
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly fast: FastLane;
  readonly tentative: TentativeCache;
  private readonly seen: FeedSubscription;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly T: Tables,
    private readonly reads: Reads,
    readonly feed: PgFeed,
    private readonly log: (msg: string) => void,
    private readonly parts: readonly AnyPart[],
    /** @internal Merges the search index's pending list after this instance's messages. */
    readonly searchUpkeep: SearchUpkeep,
  ) {
    this.leases = new PgLeases(pool, T);
    this.kv = new PgKv(pool, T.table(KV_TABLE));
    this.fast = new FastLane(pool, T, parts, () => feed.othersListen);
    this.tentative = new TentativeCache({ room: (id) => reads.versionedRoom(id), agent: (id) => reads.versionedAgent(id) });
    this.seen = feed.subscribe(feed.head, (events) => this.tentative.seen(events));
  }

  /** @internal Records this instance and keeps its `seen_at` fresh. */
  async register(): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.T.instances} (id, host, pid, version, started_at, seen_at) VALUES ($1, $2, $3, $4, now(), now())`,
      [this.instanceId, hostname(), process.pid, VERSION],
    );
    this.heartbeat = setInterval(() => {
      this.pool
        .query(`UPDATE ${this.T.instances} SET seen_at = now() WHERE id = $1`, [this.instanceId])
        // Instances that have not been seen for a day are gone for good.
        .then(() => this.pool.query(`DELETE FROM ${this.T.instances} WHERE seen_at < now() - interval '1 day'`))
        .catch(() => {});
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /**
   * Decides first on the rooms and agents this instance kept (tentative.ts), the message inserts
   * carrying their versions (basis.ts) so the write confirms them as it commits. When one has
   * changed (StaleBasis), or the decision came to anything but its own write (a refusal, an answer
   * without a write, an id already stored), the kept records are forgotten and it decides again on
   * fresh reads: what it answers is always what fresh reads give.
   */
  async decide<T>(decide: Decide<T>, write: (ops: WriteOp[]) => Promise<WriteResult>): Promise<T> {
    const basis: Basis[] = [];
    const rooms: RoomRecord[] = [];
    const noted = <R>(t: Tentative<R>): R | undefined => {
      basis.push(t.basis);
      return t.record;
    };
    const fresh = freshReads(this);
    const kept: DecisionReads = {
      ...fresh,
      room: (id) =>
        this.tentative.room(id).then((t) => {
          if (t.record) rooms.push(t.record);
          return noted(t);
        }),
      agent: (id) => this.tentative.agent(id).then(noted),
    };
    const again = (): Promise<T> => {
      this.tentative.forget(basis);
      return decideOnFreshReads(this, decide, write);
    };
    let d: Decision<T>;
    try {
      d = await decide(kept);
    } catch {
      return again();
    }
    if ('answer' in d) return again();
    for (const op of d.write) if (op.op === 'message.insert') Object.assign(op as BasedInsert, { basis, rooms });
    let result: WriteResult;
    try {
      result = await write(d.write);
    } catch (err) {
      if (err instanceof StaleBasis) return again();
      throw err;
    }
    if (result.outcomes.some((o) => o.op === 'message.insert' && o.status === 'exists')) return again();
    return d.reply(result);
  }

  async write(ops: WriteOp[]): Promise<WriteResult> {
    if (this.closing) throw new StoreError('unavailable', 'store is closed');
    // The feed holds back events of this write that it reads from the database before the write
    // returns, so subscribers get this process's own event objects, as in-process backends give.
    const expected: string[] = [];
    const expect = (ids: string[]) => {
      expected.push(...ids);
      this.feed.expect(ids);
    };
    try {
      const appends = optimistic(ops);
      const result = appends ? await this.fast.write(ops, expect) : await writeBatch(this.pool, this.T, this.parts, ops, expect);
      if (appends) withDecidedRooms(ops, result.events);
      if (ops.some((op) => op.op === 'message.insert' || op.op === 'message.edit')) this.searchUpkeep.wrote();
      if (result.events.length > 0) {
        this.feed.publish(result.events);
        await this.feed.reached(result.events[result.events.length - 1]!.seq, FEED_WAIT_MS);
      }
      return result;
    } finally {
      this.feed.unexpect(expected);
    }
  }

  /** Every write resolves only after COMMIT: nothing is pending. */
  async sync(): Promise<void> {}

  async ping(): Promise<boolean> {
    if (this.closing) return false;
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async stats(): Promise<StoreStats> {
    const [counts, last] = await Promise.all([this.reads.counts(), this.reads.lastEventSeq()]);
    return { backend: 'postgres', messages: counts.messages, events: counts.events, last_event_seq: last };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.seen.close();
      await this.searchUpkeep.close();
      await this.feed.close();
      await this.leases.releaseAll();
      await this.pool.query(`DELETE FROM ${this.T.instances} WHERE id = $1`, [this.instanceId]).catch(() => {});
      await this.pool.end().catch((err: Error) => this.log(`store: closing the database pool failed: ${err.message}`));
    })();
    return this.closing;
  }

  getRoom(id: string): Promise<RoomRecord | undefined> {
    return this.reads.getRoom(id);
  }

  listRooms(): Promise<RoomRecord[]> {
    return this.reads.listRooms();
  }

  conversationsWith(q: MemberQuery): Promise<{ rooms: RoomRecord[]; dms: DmRecord[] }> {
    return this.reads.conversationsWith(q);
  }

  pageRooms(filter: RoomFilter, q: PageQuery): Promise<PageResult<RoomRecord>> {
    return this.reads.pageRooms(filter, q);
  }

  getAgent(id: string): Promise<AgentRecord | undefined> {
    return this.reads.getAgent(id);
  }

  listAgents(): Promise<AgentRecord[]> {
    return this.reads.listAgents();
  }

  findAgentsByCredential(credentialKey: string): Promise<AgentRecord[]> {
    return this.reads.findAgentsByCredential(credentialKey);
  }

  getMessage(id: string): Promise<MessageRecord | undefined> {
    return this.reads.getMessage(id);
  }

  expiredMessages(q: ExpiredQuery): Promise<string[]> {
    return this.reads.expiredMessages(q);
  }

  messageVersions(id: string): Promise<MessageVersion[]> {
    return this.reads.messageVersions(id);
  }

  listMessages(conv: string, q: PageQuery): Promise<PageResult<Message>> {
    return this.reads.listMessages(conv, q);
  }

  getThread(id: string): Promise<ThreadRecord | undefined> {
    return this.reads.getThread(id);
  }

  listThreads(roomId: string, q: PageQuery): Promise<PageResult<ThreadRecord>> {
    return this.reads.listThreads(roomId, q);
  }

  getDm(id: string): Promise<DmRecord | undefined> {
    return this.reads.getDm(id);
  }

  listDms(): Promise<DmRecord[]> {
    return this.reads.listDms();
  }

  pageDms(filter: DmFilter, q: PageQuery): Promise<PageResult<DmRecord>> {
    return this.reads.pageDms(filter, q);
  }

  listArtifacts(filter: ArtifactFilter, q: PageQuery): Promise<PageResult<Artifact>> {
    return this.reads.listArtifacts(filter, q);
  }

  messageSeqs(ids: readonly string[]): Promise<Map<string, number>> {
    return this.reads.messageSeqs(ids);
  }

  getPairingState(pairingId: string): Promise<PairingState | undefined> {
    return this.reads.getPairingState(pairingId);
  }

  getAgentReadState(agentId: string): Promise<AgentReadState | undefined> {
    return this.reads.getAgentReadState(agentId);
  }

  part<P extends AnyPart>(p: P): ReadsOf<P> | undefined {
    if (!this.parts.includes(p)) return undefined;
    let reads = this.partReads.get(p);
    if (reads === undefined) this.partReads.set(p, (reads = p.postgres.reads((text, values) => this.reads.rows(text, values), this.T)));
    return reads as ReadsOf<P>;
  }

  eventsAfter(seq: number, limit: number): Promise<StoredEvent[]> {
    return this.reads.eventsAfter(seq, limit);
  }

  lastEventSeq(): Promise<number> {
    return this.reads.lastEventSeq();
  }

  /** Messages matching a search, newest first (the search feature's store method). */
  searchMessages(q: PgSearchQuery): Promise<PageResult<Message>> {
    return searchMessages(this.pool, this.T, q);
  }

  /** Reads of one state while writes go on (an export): snapshot.ts. */
  snapshot<R>(work: (s: StoreSnapshot) => Promise<R>): Promise<R> {
    return pgSnapshot(this.pool, this.T, this.parts, work);
  }

  eventSeq(eventId: string): Promise<number | undefined> {
    return this.reads.eventSeq(eventId);
  }
}
