// Member ids: bare local agent ids, `net:agent` for remote agents, or agent FQIDs; stored bare
// when local and scoped when remote.

import { badRequest } from '../errors.js';
import { isId, parseFqid } from '../protocol/ids.js';

/** Normalizes one member id; undefined when it is not a valid agent reference. */
export function normalizeMember(localNetwork: string, raw: string): string | undefined {
  if (raw.startsWith('svc://')) {
    const f = parseFqid(raw);
    if (f?.kind !== 'agents') return undefined;
    return f.network_id === localNetwork ? f.id : `${f.network_id}:${f.id}`;
  }
  const parts = raw.split(':');
  if (parts.length === 1) return isId(raw) ? raw : undefined;
  if (parts.length !== 2 || !isId(parts[0]!) || !isId(parts[1]!)) return undefined;
  return parts[0] === localNetwork ? parts[1]! : raw;
}

/** Normalizes and deduplicates a member list; the error names the field path. */
export function normalizeMembers(localNetwork: string, raw: readonly string[], path: string): string[] {
  const out: string[] = [];
  raw.forEach((m, i) => {
    const n = normalizeMember(localNetwork, m);
    if (n === undefined) throw badRequest(`${path}[${i}]: must be an agent id, <network_id>:<agent_id> or an agent FQID`);
    if (!out.includes(n)) out.push(n);
  });
  return out;
}

/** Scoped form of every member, for mention resolution. */
export const scopedMembers = (localNetwork: string, members: readonly string[]): string[] =>
  members.map((m) => (m.includes(':') ? m : `${localNetwork}:${m}`));
