// The state a batch is resolved against: the backend's view with the batch's earlier effects laid
// over it, so later intents of a batch see what earlier ones did.

import type { AgentReadState, AgentRecord, DmRecord, MessageRecord, PairingState, RoomRecord, ThreadRecord } from './types.js';
import type { Effect, StateView } from './effects.js';
import type { MessageVersion } from '../protocol/types.js';

/**
 * The base state with the batch's earlier effects laid over it. Each map is made on first use:
 * most batches are one message, which needs one of them.
 */
export class Overlay implements StateView {
  private rooms_: Map<string, RoomRecord> | undefined;
  private agents: Map<string, AgentRecord | null> | undefined;
  private messages: Map<string, MessageRecord | null> | undefined;
  private versions_: Map<string, MessageVersion[]> | undefined;
  private threads: Map<string, ThreadRecord> | undefined;
  private dms: Map<string, DmRecord> | undefined;
  private pairings: Map<string, PairingState | null> | undefined;
  private readStates: Map<string, AgentReadState | null> | undefined;

  constructor(private readonly base: StateView) {}

  note(e: Effect): void {
    switch (e.op) {
      case 'room.put':
        (this.rooms_ ??= new Map()).set(e.room.id, e.room);
        break;
      case 'agent.put':
        (this.agents ??= new Map()).set(e.agent.id, e.agent);
        break;
      case 'agent.delete':
        (this.agents ??= new Map()).set(e.id, null);
        break;
      case 'message.insert':
      case 'message.update':
        (this.messages ??= new Map()).set(e.record.message.id, e.record);
        break;
      case 'message.version': {
        const had = this.versions(e.message_id);
        (this.versions_ ??= new Map()).set(e.message_id, [...had, e.version]);
        break;
      }
      case 'message.forget':
        (this.versions_ ??= new Map()).set(e.message_id, []);
        break;
      case 'message.purge':
        (this.messages ??= new Map()).set(e.message_id, null);
        (this.versions_ ??= new Map()).set(e.message_id, []);
        break;
      case 'thread.put':
        (this.threads ??= new Map()).set(e.thread.id, e.thread);
        break;
      case 'dm.put':
        (this.dms ??= new Map()).set(e.dm.id, e.dm);
        break;
      case 'pairing.put':
        (this.pairings ??= new Map()).set(e.pairing_id, e.state);
        break;
      case 'pairing.delete':
        (this.pairings ??= new Map()).set(e.pairing_id, null);
        break;
      case 'read_state.put':
        (this.readStates ??= new Map()).set(e.agent_id, e.state);
        break;
      case 'read_state.delete':
        (this.readStates ??= new Map()).set(e.agent_id, null);
        break;
      default:
        break;
    }
  }

  room(id: string): RoomRecord | undefined {
    return this.rooms_?.get(id) ?? this.base.room(id);
  }

  rooms(): RoomRecord[] {
    const mine = this.rooms_;
    if (!mine || mine.size === 0) return this.base.rooms();
    const out = this.base.rooms().map((r) => mine.get(r.id) ?? r);
    for (const r of mine.values()) if (!out.some((x) => x.id === r.id)) out.push(r);
    return out.filter((r) => !r.removed_at);
  }

  agent(id: string): AgentRecord | undefined {
    const a = this.agents?.get(id);
    return a === null ? undefined : (a ?? this.base.agent(id));
  }

  hasMessage(id: string): boolean {
    const m = this.messages?.get(id);
    return m === null ? false : m !== undefined || this.base.hasMessage(id);
  }

  message(id: string): MessageRecord | undefined {
    const m = this.messages?.get(id);
    return m === null ? undefined : (m ?? this.base.message(id));
  }

  versions(id: string): MessageVersion[] {
    return this.versions_?.get(id) ?? this.base.versions(id);
  }

  thread(id: string): ThreadRecord | undefined {
    return this.threads?.get(id) ?? this.base.thread(id);
  }

  dm(id: string): DmRecord | undefined {
    return this.dms?.get(id) ?? this.base.dm(id);
  }

  pairing(id: string): PairingState | undefined {
    const s = this.pairings?.get(id);
    return s === null ? undefined : (s ?? this.base.pairing(id));
  }

  readState(agentId: string): AgentReadState | undefined {
    const s = this.readStates?.get(agentId);
    return s === null ? undefined : (s ?? this.base.readState(agentId));
  }
}
