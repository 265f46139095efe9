// The pairings feature: one PairingManager per configured pairing, reconciled on reload; the
// inbound relay rules, outbound relay and aggregate warnings as network hooks; the pairing routes.

import type { FeatureFactory } from '../app.js';
import type { Config, PairingConfig } from '../config/types.js';
import { HTTP_PROTOCOL, PAIR_PROTOCOL, type Pairing, type Warning } from '../protocol/types.js';
import { pairingRoutes } from '../http/routes/pairings.js';
import { SelfForwarder } from './inbound.js';
import { remoteSenderCheck } from './inbound-rules.js';
import { PairingManager } from './manager.js';
import { needsAttention } from './status.js';

/** Two configs of one pairing that need a new manager (new transport, credentials or identity). */
const sameWiring = (a: PairingConfig, b: PairingConfig): boolean => JSON.stringify(a) === JSON.stringify(b);

export const pairingFeature: FeatureFactory = (app) => {
  const ctx = app.net;
  const managers = new Map<string, PairingManager>();
  const forwarder = new SelfForwarder(() => app.address());
  let started = false;

  const make = (c: PairingConfig): PairingManager => new PairingManager(c, { ctx, metrics: app.metrics, answer: (f) => forwarder.answer(f) });

  const reconcile = async (config: Config): Promise<void> => {
    const wanted = new Map(config.pairings.map((p) => [p.id, p]));
    for (const [id, m] of managers) {
      const next = wanted.get(id);
      if (next && sameWiring(m.config, next)) continue;
      managers.delete(id);
      await m.close({ forget: !next });
      ctx.log('info', next ? 'pairing changed; reconnecting' : 'pairing removed', { pairing: id });
    }
    for (const [id, c] of wanted) {
      if (managers.has(id)) continue;
      const m = make(c);
      managers.set(id, m);
      if (started) m.start();
      ctx.log('info', 'pairing added', { pairing: id, transport: c.relay ? 'relay' : 'direct' });
    }
  };
  let reconciling: Promise<void> = reconcile(ctx.config);

  const lookup = {
    list: () => [...managers.values()],
    get: (id: string) => managers.get(id),
    byRemoteNetwork: (networkId: string) => [...managers.values()].find((m) => m.remoteNetworkId === networkId),
  };

  return {
    routes: pairingRoutes(lookup),
    remoteSenders: remoteSenderCheck(ctx, lookup),
    // The outboxes follow the event feed: a message stored by any process sharing the store wakes them.
    observe: {
      event: (e) => {
        const m = e.event.type === 'message.created' ? e.event.message : undefined;
        // Messages that arrived by relay are never relayed again (no multi-hop, no echo).
        if (!m || m.origin || m.from.network_id !== ctx.config.network.id) return;
        for (const mgr of managers.values()) mgr.notify();
      },
    },
    warnings: (): Warning[] => {
      const views = [...managers.values()].map((m) => m.view());
      return [...pairingWarnings([...managers.values()]), ...protocolWarnings(views), ...refusalWarnings(views)];
    },
    started() {
      started = true;
      void reconciling.then(() => {
        for (const m of managers.values()) m.start();
      });
    },
    reloaded(config) {
      reconciling = reconciling.then(() => reconcile(config));
    },
    async close() {
      await reconciling;
      await Promise.all([...managers.values()].map((m) => m.close()));
      managers.clear();
      await forwarder.close();
    },
  };
};

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
      action: 'see GET /v1/pairings for each pairing\'s diagnostics; incompatible peers need a matching svc version, failing ones a reachable peer and matching pair token',
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
