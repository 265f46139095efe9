// Which agents are attached right now, from the broker's agent.connected / agent.disconnected
// events since this process started. Attachments do not survive a restart, so in-memory is the
// truth; the console reads a snapshot, then follows the same events over SSE.

import type { StoredEvent } from '../store/types.js';

export interface PresenceEntry {
  agent_id: string;
  connected: boolean;
  /** When the agent last connected or disconnected. */
  since: string;
}

export class Presence {
  /** agent id -> open attachments and the last change. */
  private readonly agents = new Map<string, { open: number; since: string }>();

  /** Feeds one stored event (a broker subscriber). */
  observe(e: StoredEvent): void {
    const ev = e.event;
    const id = ev.agent?.agent_id ?? ev.agent_id;
    if (id === undefined) return;
    if (ev.type === 'agent.connected') {
      const cur = this.agents.get(id);
      this.agents.set(id, { open: (cur?.open ?? 0) + 1, since: ev.created_at });
    } else if (ev.type === 'agent.disconnected') {
      const cur = this.agents.get(id);
      this.agents.set(id, { open: Math.max(0, (cur?.open ?? 1) - 1), since: ev.created_at });
    } else if (ev.type === 'agent.removed') {
      this.agents.delete(id);
    }
  }

  /** Presence of the agents `visible` accepts, connected first. */
  snapshot(visible: (agentId: string) => boolean): PresenceEntry[] {
    const out: PresenceEntry[] = [];
    for (const [agent_id, s] of this.agents) if (visible(agent_id)) out.push({ agent_id, connected: s.open > 0, since: s.since });
    return out.sort((a, b) => Number(b.connected) - Number(a.connected) || a.agent_id.localeCompare(b.agent_id));
  }
}
