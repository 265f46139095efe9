// Inbound relay (the checkRemoteSender check): a message whose sender's home is another network is
// accepted only from that pairing's pair-scoped credential, with an origin naming the sender's
// network, into a room whose federation allows the pairing (or a DM with a local participant).
// The room write policy is applied afterwards by sendMessage to the sender's scoped id.

import { badRequest, forbidden } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import type { NetworkContext } from '../network/context.js';
import { splitScoped } from '../protocol/ids.js';
import type { SendRequest } from '../protocol/types.js';
import type { RoomRecord } from '../store/types.js';
import type { PairingManager } from './manager.js';

export interface ManagerLookup {
  get(id: string): PairingManager | undefined;
  byRemoteNetwork(networkId: string): PairingManager | undefined;
}

/** The checkRemoteSender check for this network's pairings. */
export function remoteSenderCheck(ctx: NetworkContext, pairings: ManagerLookup) {
  return (p: Principal, req: SendRequest, target: { room?: RoomRecord }): void => {
    const home = req.from.network_id ?? ctx.config.network.id;
    let mgr: PairingManager | undefined;
    if (p.kind === 'static') {
      if (!p.scopes.has('pair'))
        throw forbidden(`sender network ${home} is not this network; only a paired network's pair credential relays remote senders`);
      mgr = pairings.get(p.tokenId);
      if (!mgr)
        throw forbidden(`token ${p.tokenId} is not the credential of a configured pairing (pairings[].id must equal its auth.tokens[].id)`);
    } else if (p.kind === 'trusted') {
      // auth.mode none: no credential to go by; the sender's network picks the pairing.
      mgr = pairings.byRemoteNetwork(home);
      if (!mgr) throw forbidden(`network ${home} is not paired with this network`);
    } else {
      throw forbidden(`sender network ${home} is not this network; only a paired network's pair credential relays remote senders`);
    }
    if (!req.origin) throw badRequest('body.origin: required on messages relayed from a paired network');
    if (req.origin.network_id !== home) {
      throw forbidden(
        `body.origin.network_id (${req.origin.network_id}) must equal body.from.network_id (${home}): only messages originated on the peer network are relayed`,
      );
    }
    mgr.admitOrigin(home);
    const net = ctx.config.network.id;
    if (target.room !== undefined) {
      if (!target.room.federation_pairings.includes(mgr.id)) {
        throw forbidden(`room ${target.room.id} does not federate with pairing ${mgr.id} (rooms[].federation.pairings)`);
      }
      return;
    }
    const t = req.target;
    if (t.kind === 'dm' && t.participant_ids !== undefined) {
      const local =
        t.participant_ids.some((id) => !id.startsWith('svc://') && splitScoped(net, id).network_id === net) ||
        t.participant_ids.some((id) => id.startsWith(`svc://${net}/agents/`));
      if (!local) throw forbidden(`a relayed DM needs a participant of this network (${net})`);
    }
  };
}
