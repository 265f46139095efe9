// Pairing status transitions (the spec, States > Pairing status). Pure: the previous state and what
// just happened in, the next state out.

import type { PairingStatus } from '../protocol/types.js';

export interface StatusState {
  status: PairingStatus;
  /** The peer has answered a compatibility check at least once (survives restarts via the cursor file). */
  answered: boolean;
}

export type Outcome =
  /** A compatibility check completed: the remote answered with a network document. */
  | { kind: 'checked'; status: 'connected' | 'degraded' | 'incompatible' }
  /** A pairing request (discovery or relay) failed: unreachable, auth refused, relay down, timeout. */
  | { kind: 'failed' };

/** The next state. A failure reads as `pending` until the peer has answered once, then as `error`. */
export function nextStatus(prev: StatusState, outcome: Outcome): StatusState {
  if (outcome.kind === 'checked') return { status: outcome.status, answered: true };
  return { status: prev.answered ? 'error' : 'pending', answered: prev.answered };
}

/** Whether messages may be relayed in this state. */
export const canRelay = (s: PairingStatus): boolean => s === 'connected' || s === 'degraded';

/** Whether the state is worth an operator warning (pending and unknown are expected during onboarding). */
export const needsAttention = (s: PairingStatus): boolean => s === 'error' || s === 'incompatible';
