// The delivery feature's writes and reads of its rows (rows.ts) in the store's key/value table.
// Writes happen in the background (an attachment never waits for them) and, per agent, in the
// order they were asked for: a wake's ACK must never be overtaken by the write that offered it.
// Only the attachment holding an agent's lease writes its wake rows, so a row is read, changed
// and put back by one writer at a time.
//
// What is kept at a coarser grain, to keep the ACK path cheap: an ACK that acknowledges no wake is
// stamped at most every ACK_STAMP_MS per agent and instance (one that acknowledges a wake at once),
// a history read every READ_STAMP_MS, an attachment's row renewed every RENEW_MS; and the rows
// every agent asks for at about the same moment are stored together (put-batch.ts).

import type { NetworkContext } from '../network/context.js';
import { ATTACH_RECORD_TTL_MS, type AttachedBy, type HandedWake } from '../network/delivery.js';
import type { KvTable } from '../store/types.js';
import { ACK, ATTACH, ATTACHED_BY, type AtRow, type AttachRow, READ, WAKE, type WakeRow, attachId, parsed, wakeId } from './rows.js';
import { PutBatch } from './put-batch.js';
import type { AgentRows } from './view.js';

export const ACK_STAMP_MS = 30_000;
export const READ_STAMP_MS = 30_000;
/** An attachment's record is renewed this often: a third of its life, so two renewals may be late. */
export const RENEW_MS = ATTACH_RECORD_TTL_MS / 3;

export class DeliveryState {
  /** The last write of each agent's ops, which the next one waits for. */
  private readonly chains = new Map<string, Promise<void>>();
  /**
   * When this instance last stamped each agent's ACK, history read and attachment renewal (ms), by
   * agent id: the caller's own string, so an ACK builds no key (one agent has one attachment).
   */
  private readonly stamped: Record<'ack' | 'read' | 'attach', Map<string, number>> = { ack: new Map(), read: new Map(), attach: new Map() };
  private readonly pending = new Set<Promise<void>>();
  private readonly puts = new PutBatch(() => this.kv);

  constructor(private readonly ctx: NetworkContext) {}

  private get kv(): KvTable {
    return this.ctx.store.kv;
  }

  /** Runs `op` after the agent's earlier ops; a failure is logged, never thrown. */
  private run(agentId: string, what: string, op: () => Promise<void>): void {
    const prev = this.chains.get(agentId) ?? Promise.resolve();
    const next = prev
      .then(op)
      .catch((err: unknown) =>
        this.ctx.log('warn', 'delivery: a record was not stored', { agent: agentId, what, error: String((err as Error)?.message ?? err) }),
      );
    this.chains.set(agentId, next);
    this.pending.add(next);
    void next.finally(() => {
      this.pending.delete(next);
      if (this.chains.get(agentId) === next) this.chains.delete(agentId);
    });
  }

  /** Whether the agent's `kind` was stamped less than `ms` ago; stamps it otherwise. */
  private recently(kind: keyof DeliveryState['stamped'], agentId: string, ms: number, now: number): boolean {
    const stamps = this.stamped[kind];
    const last = stamps.get(agentId);
    if (last !== undefined && now - last < ms) return true;
    if (stamps.size > 100_000) stamps.clear();
    stamps.set(agentId, now);
    return false;
  }

  attached(agentId: string, by: AttachedBy, client: string | undefined, ttlMs: number, startCursor?: number): void {
    const since = new Date().toISOString();
    this.stamped.attach.set(agentId, Date.now());
    this.run(agentId, 'attached', async () => {
      await this.putAttach(agentId, { by, ...(client ? { client } : {}), since }, ttlMs);
      // Wakes at or before the cursor the runtime resumed after are ones it says it has processed.
      if (startCursor !== undefined) {
        for (const w of await this.wakesOf(agentId)) if (w.seq <= startCursor) await this.kv.delete(WAKE, wakeId(agentId, w.message_id));
      }
    });
  }

  renew(agentId: string, by: AttachedBy, client: string | undefined, since: number, ttlMs: number): void {
    if (this.recently('attach', agentId, RENEW_MS, Date.now())) return;
    const row = { by, ...(client ? { client } : {}), since: new Date(since).toISOString() };
    this.run(agentId, 'renewed', () => this.putAttach(agentId, row, ttlMs));
  }

  private putAttach(agentId: string, row: AttachRow, ttlMs: number): Promise<void> {
    return this.puts.put({
      kind: ATTACH,
      id: attachId(agentId, row.by),
      lookup: agentId,
      value: JSON.stringify(row),
      expires_at: Date.now() + ttlMs,
    });
  }

  detached(agentId: string, by: AttachedBy): void {
    this.stamped.attach.delete(agentId);
    this.run(agentId, 'detached', async () => void (await this.kv.delete(ATTACH, attachId(agentId, by))));
  }

  offered(agentId: string, w: HandedWake, _offers: number): void {
    const at = new Date().toISOString();
    this.run(agentId, 'offered', async () => {
      const cur = parsed<WakeRow>((await this.kv.get(WAKE, wakeId(agentId, w.message_id)))?.value);
      const row: WakeRow = cur
        ? { ...cur, last_offered_at: at, offers: cur.offers + 1 }
        : { agent_id: agentId, ...w, first_offered_at: at, last_offered_at: at, offers: 1 };
      await this.puts.put({ kind: WAKE, id: wakeId(agentId, w.message_id), lookup: agentId, value: JSON.stringify(row) });
    });
  }

  gaveUp(agentId: string, w: HandedWake): void {
    const at = new Date().toISOString();
    this.run(agentId, 'gave up', async () => {
      const cur = parsed<WakeRow>((await this.kv.get(WAKE, wakeId(agentId, w.message_id)))?.value);
      if (!cur) return;
      await this.puts.put({
        kind: WAKE,
        id: wakeId(agentId, w.message_id),
        lookup: agentId,
        value: JSON.stringify({ ...cur, gave_up_at: at }),
      });
    });
  }

  acked(agentId: string, wakes: readonly HandedWake[]): void {
    const now = Date.now();
    if (this.recently('ack', agentId, wakes.length > 0 ? 0 : ACK_STAMP_MS, now)) return;
    const at = new Date(now).toISOString();
    this.run(agentId, 'acked', async () => {
      // The ACK's time first: a reader never sees the wake gone without the ACK that took it.
      await this.puts.put({ kind: ACK, id: agentId, value: JSON.stringify({ at } satisfies AtRow) });
      for (const w of wakes) await this.kv.delete(WAKE, wakeId(agentId, w.message_id));
    });
  }

  read(agentId: string): void {
    const now = Date.now();
    if (this.recently('read', agentId, READ_STAMP_MS, now)) return;
    const at = new Date(now).toISOString();
    this.run(agentId, 'read', () => this.puts.put({ kind: READ, id: agentId, value: JSON.stringify({ at } satisfies AtRow) }));
  }

  private async wakesOf(agentId: string): Promise<WakeRow[]> {
    return (await this.allWakes()).filter((w) => w.agent_id === agentId);
  }

  /** Deletes the rows of wakes no one can acknowledge any more (their agent was removed). */
  forget(rows: readonly WakeRow[]): void {
    for (const w of rows)
      this.run(w.agent_id, 'forgotten', async () => void (await this.kv.delete(WAKE, wakeId(w.agent_id, w.message_id))));
  }

  /** Every pending wake of every agent (rows exist only while unacknowledged: few when all is well). */
  async allWakes(): Promise<WakeRow[]> {
    const out: WakeRow[] = [];
    for (const e of await this.kv.list(WAKE)) {
      const r = parsed<WakeRow>(e.value);
      if (r && typeof r.agent_id === 'string' && typeof r.first_offered_at === 'string') out.push(r);
    }
    return out;
  }

  /** One agent's rows, as every instance reads them. */
  async rowsOf(agentId: string): Promise<AgentRows> {
    const [wakes, attachments, ack, read] = await Promise.all([
      this.wakesOf(agentId),
      Promise.all(ATTACHED_BY.map(async (by) => parsed<AttachRow>((await this.kv.get(ATTACH, attachId(agentId, by)))?.value))),
      this.kv.get(ACK, agentId),
      this.kv.get(READ, agentId),
    ]);
    const ackRow = parsed<AtRow>(ack?.value);
    const readRow = parsed<AtRow>(read?.value);
    return {
      wakes,
      attachments: attachments.filter((a): a is AttachRow => a !== undefined),
      ...(ackRow ? { ack: ackRow } : {}),
      ...(readRow ? { read: readRow } : {}),
    };
  }

  /** Waits for the writes asked for so far (shutdown; tests). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
