// The operator warnings of the pairings (GET /v1/network, svc doctor, the console): pure functions
// of the managers' status and the pairings' views.

import { HTTP_PROTOCOL, PAIR_PROTOCOL, type Pairing, type Warning } from '../protocol/types.js';
import type { PairingManager } from './manager.js';
import { needsAttention } from './status.js';

/** One aggregate warning for the pairings that need an operator (error or incompatible). */
export function pairingWarnings(managers: readonly PairingManager[]): Warning[] {
  const bad = managers.filter((m) => needsAttention(m.currentStatus));
  if (bad.length === 0) return [];
  const parts = bad.map((m) => {
    const reason = m.view().diagnostics?.reason;
    return `${m.id} (${m.currentStatus}${reason ? `: ${reason}` : ''})`;
  });
  return [
    {
      severity: bad.some((m) => m.currentStatus === 'incompatible') ? 'error' : 'warning',
      code: 'pairing_compatibility',
      message: `${bad.length} of ${managers.length} pairing${managers.length === 1 ? '' : 's'} need attention: ${parts.join(', ')}`,
      action:
        "see GET /v1/pairings for each pairing's diagnostics; incompatible peers need a matching svc version, failing ones a reachable peer and matching pair token",
    },
  ];
}

/** One warning per pairing whose peer refused relayed messages (the console shows warnings). */
export function refusalWarnings(pairings: readonly Pick<Pairing, 'id' | 'remote_network_id' | 'refused'>[]): Warning[] {
  return pairings.flatMap((p) => {
    const r = p.refused;
    if (!r) return [];
    const reasons = Object.entries(r.by_reason)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    return [
      {
        severity: 'warning',
        code: 'relay_refused',
        message: `pairing ${p.id}: ${r.total} relayed message${r.total === 1 ? '' : 's'} refused by ${p.remote_network_id || 'the paired network'} (${reasons}; last ${r.recent.map((x) => x.message_id).join(', ')}); they are not retried`,
        action: r.recent[0]!.fix,
        docs_url: 'docs/warnings.md#relay-refused',
      },
    ];
  });
}

const UNSUPPORTED = new Set(['unsupported_http_protocol', 'unsupported_pair_protocol']);

/** unsupported-protocol: one per peer whose check found a protocol version this server does not speak. */
export function protocolWarnings(pairings: readonly Pick<Pairing, 'id' | 'remote_network_id' | 'status' | 'diagnostics'>[]): Warning[] {
  return pairings.flatMap((p): Warning[] => {
    const d = p.diagnostics;
    if (p.status !== 'incompatible' || !d?.reason || !UNSUPPORTED.has(d.reason)) return [];
    const theirs = [...(d.remote_protocols?.http ?? []), ...(d.remote_protocols?.pair ?? [])];
    return [
      {
        severity: 'error',
        code: 'unsupported-protocol',
        message: `pairing ${p.id}: ${p.remote_network_id || 'the peer'}${d.remote_version ? ` (svc ${d.remote_version})` : ''} speaks ${theirs.join(', ') || 'no protocol this server knows'}; this server speaks ${HTTP_PROTOCOL}, ${PAIR_PROTOCOL}. Nothing is relayed to it`,
        action: 'upgrade svc on the side with the older protocol, then restart it; the pairing reconnects at its next check',
        docs_url: 'docs/warnings.md#unsupported-protocol',
      },
    ];
  });
}
