// svc agents status [ID]: delivery as an operator sees it (GET /v1/agents/{id}/delivery): what holds
// each agent's attachment, its wakes not acknowledged and the age of the oldest, its last ACK and
// read. Without an ID, every agent the caller may see, one line each (one request per agent).

import { collectAll } from '../../../client/pages.js';
import type { DeliveryStatus } from '../../../protocol/delivery.js';
import { json, keyValues, table } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { withClient, type ClientFlags } from '../../with-client.js';

const attachedText = (d: DeliveryStatus): string =>
  d.attachments.length === 0 ? 'no' : d.attachments.map((a) => `${a.by}${a.client ? ` (${a.client})` : ''} since ${a.since}`).join('; ');

const oldestText = (d: DeliveryStatus): string =>
  d.oldest_pending_at === null ? '-' : `${d.oldest_pending_at} (${d.oldest_pending_seconds ?? 0} s ago)`;

function statusLines(io: Io, d: DeliveryStatus): string[] {
  const c = io.color;
  const lines = keyValues(c, [
    ['agent', c.cyan(d.agent_id)],
    ['attached', attachedText(d)],
    ['pending wakes', d.pending_wakes > 0 ? c.yellow(String(d.pending_wakes)) : '0'],
    ['oldest pending', oldestText(d)],
    ['gave up', d.gave_up > 0 ? c.red(`${d.gave_up} (no longer offered; still pending until acknowledged)`) : undefined],
    ['last ack', d.last_ack_at ?? '-'],
    ['last read', d.last_read_at ?? '-'],
  ]);
  for (const w of d.wakes) {
    const where =
      w.target.kind === 'dm'
        ? `dm ${w.target.dm_id}`
        : w.target.kind === 'thread'
          ? `thread ${w.target.thread_id}`
          : `room ${w.target.room_id}`;
    const gave = w.gave_up_at ? `, gave up ${w.gave_up_at}` : '';
    lines.push(`  ${w.reason} ${w.message_id} in ${where}: cursor ${w.cursor}, offered ${w.offers}x since ${w.first_offered_at}${gave}`);
  }
  return lines;
}

/** `svc agents status ID` prints one agent's delivery; without ID, a table of every visible agent's. */
export function agentsStatus(io: Io, id: string | undefined, flags: ClientFlags): Promise<number> {
  return withClient(io, 'agents status', flags, async (client) => {
    if (id !== undefined) {
      const d = await client.agentDelivery(id);
      if (flags.json) io.out(json(d));
      else for (const l of statusLines(io, d)) io.out(l);
      return EXIT.ok;
    }
    const agents = await collectAll((q) => client.listAgents(q).then((r) => ({ items: r.agents, ...(r.page ? { page: r.page } : {}) })));
    const all: DeliveryStatus[] = [];
    for (const a of agents) all.push(await client.agentDelivery(a.id));
    if (flags.json) {
      io.out(json({ agents: all }));
      return EXIT.ok;
    }
    if (all.length === 0) {
      io.out('no agents');
      return EXIT.ok;
    }
    const c = io.color;
    for (const line of table(c, all, [
      { header: 'AGENT', value: (d) => d.agent_id, style: (s) => c.cyan(s) },
      { header: 'ATTACHED', value: (d) => (d.attachments.length === 0 ? 'no' : d.attachments.map((a) => a.by).join(',')) },
      { header: 'PENDING', value: (d) => String(d.pending_wakes) },
      { header: 'OLDEST', value: (d) => (d.oldest_pending_seconds === null ? '-' : `${d.oldest_pending_seconds} s`) },
      { header: 'GAVE UP', value: (d) => String(d.gave_up) },
      { header: 'LAST ACK', value: (d) => d.last_ack_at ?? '-' },
      { header: 'LAST READ', value: (d) => d.last_read_at ?? '-', style: (s) => c.dim(s) },
    ]))
      io.out(line);
    return EXIT.ok;
  });
}
