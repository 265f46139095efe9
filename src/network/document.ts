// GET /v1/network: the network document, partly viewer-specific (console.can_send_human).

import { canSendHuman as canSendHumanFor } from '../auth/senders.js';
import { authorize } from '../auth/policy.js';
import type { Principal } from '../auth/principal.js';
import { ATTACH_PROTOCOL, HTTP_PROTOCOL, PAIR_PROTOCOL, type NetworkDocument, type Warning } from '../protocol/types.js';
import type { NetworkContext } from './context.js';
import { installedVersion, migrationWarning, PAIRING_READERS_ONLY, staleServerWarning } from './operator-warnings.js';

/** Whether this principal may send `from.type: human` messages at all. */
export function canSendHuman(ctx: NetworkContext, p: Principal): boolean {
  return canSendHumanFor(ctx.config.server.human_ingress, p);
}

/**
 * Every operator warning: the config's, this process's and its store's, then the features'
 * (pairings). Given a principal, warnings carrying pairing details (room and message ids) are kept
 * for those who may read GET /v1/pairings.
 */
export function warnings(ctx: NetworkContext, p?: Principal): Warning[] {
  const all = [
    ...ctx.configWarnings,
    ...staleServerWarning(ctx.version, installedVersion()),
    ...migrationWarning(ctx.store.schemaChange),
    ...ctx.extensions.warnings.flatMap((w) => w()),
  ];
  if (!p || authorize(p, 'pairings.read', ctx.config.auth).allow) return all;
  return all.filter((w) => !PAIRING_READERS_ONLY.has(w.code));
}

export function networkDocument(ctx: NetworkContext, p: Principal): NetworkDocument {
  const c = ctx.config;
  return {
    id: c.network.id,
    ...(ctx.uid !== undefined ? { uid: ctx.uid } : {}),
    name: c.network.name,
    version: ctx.version,
    protocols: { http: [HTTP_PROTOCOL], attach: [ATTACH_PROTOCOL], pair: [PAIR_PROTOCOL] },
    capabilities: {
      event_stream: 'sse',
      attachment_protocol: 'websocket',
      human_ingress: c.server.human_ingress,
      direct_messages: c.server.direct_messages,
      message_pagination: 'cursor',
      pairings: true,
    },
    console: { can_send_human: canSendHuman(ctx, p) },
    warnings: warnings(ctx, p),
    ...(c.server.retention && Object.keys(c.server.retention).length > 0 ? { retention: c.server.retention } : {}),
  };
}
