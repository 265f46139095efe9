// svc invite list: the pairings the running server has, with their status and the relayed messages
// each peer refused (counts by reason, the last ids, the fix on the other side).

import { collectAll } from '../../../client/pages.js';
import type { Pairing } from '../../../protocol/types.js';
import { json, table } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { withClient, type ClientFlags } from '../../with-client.js';

/** A pairing's refusals in a few words: `2 (1 forbidden, 1 not_found)`, or `-`. */
export function refusedSummary(p: Pairing): string {
  const r = p.refused;
  if (!r) return '-';
  return `${r.total} (${Object.entries(r.by_reason)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')})`;
}

/** Prints every pairing as a table (then one line per refusing peer), or `{pairings}` with --json. */
export function pairingsList(io: Io, flags: ClientFlags): Promise<number> {
  return withClient(io, 'invite list', flags, async (client) => {
    const pairings = await collectAll((q) => client.listPairings(q).then((r) => ({ items: r.pairings, page: r.page })));
    if (flags.json) {
      io.out(json({ pairings }));
      return EXIT.ok;
    }
    if (pairings.length === 0) {
      io.out('no pairings (link a network with: svc invite create --relay-url URL)');
      return EXIT.ok;
    }
    const c = io.color;
    for (const line of table(c, pairings, [
      { header: 'ID', value: (p) => p.id, style: (s) => c.cyan(s) },
      { header: 'REMOTE', value: (p) => p.remote_network_id || '-' },
      {
        header: 'STATUS',
        value: (p) => p.status,
        style: (s, p) =>
          p.status === 'connected' ? c.green(s) : p.status === 'error' || p.status === 'incompatible' ? c.red(s) : c.yellow(s),
      },
      { header: 'REFUSED', value: refusedSummary, style: (s, p) => (p.refused ? c.yellow(s) : s) },
    ])) {
      io.out(line);
    }
    for (const p of pairings) {
      if (!p.refused) continue;
      io.out(`${p.id}: last refused ${p.refused.recent.map((r) => r.message_id).join(', ')}; not retried. Fix ${p.refused.recent[0]!.fix}`);
    }
    return EXIT.ok;
  });
}
