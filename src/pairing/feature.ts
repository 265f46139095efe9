// The pairings feature: one PairingManager per configured pairing, reconciled on reload; the
// inbound relay rules, outbound relay and aggregate warnings as network extensions; the pairing routes.

import type { FeatureFactory } from '../feature.js';
import type { Config, PairingConfig } from '../config/types.js';
import type { Warning } from '../protocol/types.js';
import { AppError } from '../errors.js';
import { openPeerFile, peerFileRoutes } from './peer-files.js';
import { pairingRoutes } from './routes.js';
import { SelfForwarder } from './inbound.js';
import { remoteSenderCheck } from './inbound-rules.js';
import { PairingManager } from './manager.js';
import { pairingWarnings, protocolWarnings, refusalWarnings } from './warnings.js';

/** Two configs of one pairing that need a new manager (new transport, credentials or identity). */
const sameWiring = (a: PairingConfig, b: PairingConfig): boolean => JSON.stringify(a) === JSON.stringify(b);

export const pairingFeature: FeatureFactory = (app) => {
  const ctx = app.ctx;
  const managers = new Map<string, PairingManager>();
  const forwarder = new SelfForwarder(
    () => app.address(),
    () => ctx.extensions.relayed ?? [],
  );
  let started = false;

  const make = (c: PairingConfig): PairingManager =>
    new PairingManager(c, { ctx, metrics: app.metrics, answer: (f) => forwarder.answer(f) });

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
    routes: [...pairingRoutes(lookup), ...peerFileRoutes(lookup)],
    provides: {
      // The files of relayed messages, fetched from their home network on the first download (peer-files.ts).
      peerFiles: {
        open: (networkId, fileId, size) => {
          const m = lookup.byRemoteNetwork(networkId);
          if (!m)
            throw new AppError(
              'bad_gateway',
              `file ${fileId} is kept on network ${networkId}, which is not paired with this network any more`,
            );
          return openPeerFile(m.peer, networkId, fileId, size);
        },
      },
    },
    remoteSenders: remoteSenderCheck(ctx, lookup),
    // The outboxes follow the event feed: a message stored by any process sharing the store wakes them.
    observe: {
      event: (e) => {
        const m = e.event.type === 'message.created' ? e.event.message : undefined;
        const net = ctx.config.network.id;
        // Messages and events that arrived by relay are never relayed again (no multi-hop, no echo).
        const local = m
          ? !m.origin && m.from.network_id === net
          : ctx.extensions.relayed?.some((k) => k.type === e.event.type && k.madeHere(e.event, net) !== undefined) === true;
        if (!local) return;
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
