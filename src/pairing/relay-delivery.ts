// What a pairing relays and how one relayed message or event (network/relayed-event.ts) is
// delivered: eligibility by the room's federation and the peer's DM support, the remote's answer
// classified (delivered, retry later, refused for good), and refusals counted and logged with the
// fix on the other side. The pairing (manager.ts) owns the status and the transport; this module
// only reports to it.

import type { Metrics } from '../metrics-registry.js';
import { now, type NetworkContext } from '../network/context.js';
import type { Message, ServiceEvent, Target } from '../protocol/types.js';
import { type RelayedEvent, sharesTarget } from '../network/relayed-event.js';
import type { Delivery } from './outbox.js';
import { type RefusalTally, refusalFix, refusalReason } from './refusals.js';
import { classifyRelayAnswer, isRelayable, relayRequestFor } from './relay-message.js';
import { carryFiles } from './relay-files.js';
import type { PairResponse, PairTransport } from './transport.js';

/** What delivery needs from its pairing. */
export interface RelayHost {
  readonly id: string;
  ctx: NetworkContext;
  metrics: Metrics;
  transport: PairTransport;
  refusals: RefusalTally;
  remoteNetworkId(): string | undefined;
  /** Whether the peer said it takes DMs. */
  remoteDirectMessages(): boolean;
  /** The transport could not ask the peer (counted toward the status). */
  transportFailed(err: unknown): void;
  /** The peer answered with a failure (counted toward the status). */
  failed(reason: string, message: string): void;
  /** Schedules the next health check after a failure, backing off. */
  backOff(): void;
}

/** The outbox's callbacks for one pairing. */
export interface RelayDelivery {
  eligible(m: Message): Promise<boolean>;
  deliver(m: Message): Promise<Delivery>;
  /** Whether an event of a kind a feature relays (ctx.extensions.relayed) goes to this pairing. */
  eventEligible(e: ServiceEvent): Promise<boolean>;
  deliverEvent(e: ServiceEvent): Promise<Delivery>;
}

/** The delivery callbacks of the pairing `h`. */
export function relayDelivery(h: RelayHost): RelayDelivery {
  const roomFederated = async (target: Target) => {
    const room = target.kind === 'dm' ? undefined : await h.ctx.store.getRoom(target.room_id);
    return (roomId: string) => room !== undefined && room.id === roomId && !room.removed_at && room.federation_pairings.includes(h.id);
  };
  const kindOf = (e: ServiceEvent): RelayedEvent | undefined => h.ctx.extensions.relayed?.find((k) => k.type === e.type);
  const peer = () => ({
    localNetworkId: h.ctx.config.network.id,
    ...(h.remoteNetworkId() ? { remoteNetworkId: h.remoteNetworkId()! } : {}),
    remoteDirectMessages: h.remoteDirectMessages(),
  });
  /** A retryable answer: counted toward the status, tried again after a back-off. */
  const retryAfter = (status: number): Delivery => {
    h.failed(status === 401 ? 'unauthorized' : 'remote_error', remoteStatusMessage(status));
    h.backOff();
    return 'retry';
  };
  const unreachable = (err: unknown): Delivery => {
    h.transportFailed(err);
    h.backOff();
    return 'retry';
  };

  return {
    eligible: async (m) => isRelayable(m, { ...peer(), roomFederated: await roomFederated(m.target) }),
    async eventEligible(e) {
      const t = kindOf(e)?.madeHere(e, h.ctx.config.network.id);
      return t !== undefined && sharesTarget(t, { ...peer(), roomFederated: await roomFederated(t) });
    },

    /** Repeats an event on the peer; a refusal (what it names never reached the peer, 404 on a removal) is final. */
    async deliverEvent(e) {
      const kind = kindOf(e);
      if (!kind) return 'done';
      const req = kind.request(e);
      let res: PairResponse;
      try {
        res = await h.transport.request(req.method, req.path, req.body);
      } catch (err) {
        return unreachable(err);
      }
      const verdict = classifyRelayAnswer(res.status);
      if (verdict === 'retry') return retryAfter(res.status);
      if (verdict === 'refused') {
        h.ctx.log('info', `the paired network refused a relayed ${e.type} event; it will not be retried`, {
          pairing: h.id,
          ...kind.logFields(e),
          status: res.status,
          error: errorText(res.body),
        });
      }
      return 'done';
    },

    async deliver(m) {
      const net = h.ctx.config.network.id;
      let withParent = true;
      // Its small files go first, so the message names the peer's copies (relay-files.ts).
      let carried: Awaited<ReturnType<typeof carryFiles>>;
      try {
        carried = await carryFiles(h.ctx, h.transport, m);
      } catch (err) {
        return unreachable(err);
      }
      if (carried === 'retry') return retryAfter(503);
      for (;;) {
        let r: PairResponse;
        try {
          r = await h.transport.request('POST', '/v1/messages', relayRequestFor(m, net, { withParent, carried }));
        } catch (err) {
          return unreachable(err);
        }
        const verdict = classifyRelayAnswer(r.status);
        if (verdict === 'delivered') return 'done';
        // The thread's parent may predate the pairing (no backfill): create the thread there without it.
        if (r.status === 404 && withParent && m.target.kind === 'thread' && m.target.parent_message_id) {
          withParent = false;
          continue;
        }
        if (verdict === 'retry') return retryAfter(r.status);
        refused(h, m, r);
        return 'done';
      }
    },
  };
}

/** Counts a refusal (listing, metrics) and logs it with the fix on the other side. */
function refused(h: RelayHost, m: Message, r: PairResponse): void {
  const error = errorText(r.body);
  const reason = refusalReason(r.status, r.body);
  const fix = refusalFix({
    remote: h.remoteNetworkId() ?? h.id,
    localNetworkId: h.ctx.config.network.id,
    pairingId: h.id,
    message: m,
    ...(error ? { error } : {}),
  });
  h.refusals.record({
    message_id: m.id,
    reason,
    status: r.status,
    ...(m.target.kind === 'dm' ? {} : { room_id: m.target.room_id }),
    at: now(),
    fix,
  });
  h.metrics.relayRefused.inc({ pairing: h.id, reason });
  h.ctx.log('warn', 'the paired network refused a relayed message; it will not be retried', {
    pairing: h.id,
    message_id: m.id,
    status: r.status,
    reason,
    error,
    fix,
  });
}

/** The words for a failing remote answer (status diagnostics and errors to the caller). */
export function remoteStatusMessage(status: number): string {
  if (status === 401) return 'the remote refused the pairing token (HTTP 401): it has no matching pair token yet';
  if (status === 403) return 'the remote refused the request (HTTP 403)';
  return `the remote answered HTTP ${status}`;
}

function errorText(body: unknown): string | undefined {
  if (body !== null && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string')
    return (body as { error: string }).error.slice(0, 300);
  return undefined;
}
