// Compatibility of a remote network document (the spec, Versioning rule 3). Pure: the remote's
// GET /v1/network body in, a status with a machine-readable reason and redacted diagnostics out.

import { HTTP_PROTOCOL, PAIR_PROTOCOL, type PairingDiagnostics, type PairingStatus } from '../protocol/types.js';

export type CompatReason =
  | 'invalid_network_document'
  | 'network_id_mismatch'
  | 'unsupported_http_protocol'
  | 'unsupported_pair_protocol'
  | 'missing_cursor_pagination'
  | 'direct_messages_unavailable'
  | 'legacy_pair_protocol';

export interface CompatInput {
  /** The remote's GET /v1/network body, as received. */
  doc: unknown;
  /** The network id the pairing expects; undefined when not known yet (inviting side). */
  expected?: string;
  /** This network's own id: a peer answering with it is never the right one. */
  localNetworkId: string;
  checkedAt: string;
}

export interface CompatResult {
  status: Extract<PairingStatus, 'connected' | 'degraded' | 'incompatible'>;
  reason?: CompatReason;
  diagnostics: PairingDiagnostics;
  /** What later rules need from the remote. */
  remote?: { network_id: string; name?: string; direct_messages: boolean };
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Decides the pairing status a remote network document allows. */
export function evaluateRemote(input: CompatInput): CompatResult {
  const doc = obj(input.doc);
  const diagnostics: PairingDiagnostics = { checked_at: input.checkedAt };
  const result = (
    status: CompatResult['status'],
    reason: CompatReason | undefined,
    message: string | undefined,
    remote?: CompatResult['remote'],
  ): CompatResult => ({
    status,
    ...(reason ? { reason } : {}),
    diagnostics: { ...diagnostics, ...(reason ? { reason } : {}), ...(message ? { message } : {}) },
    ...(remote ? { remote } : {}),
  });
  if (!doc || typeof doc.id !== 'string' || doc.id === '') {
    return result('incompatible', 'invalid_network_document', 'the remote /v1/network answer is not a network document');
  }
  const protocols = obj(doc.protocols);
  const http = strings(protocols?.http);
  const pair = strings(protocols?.pair);
  const caps = obj(doc.capabilities);
  if (typeof doc.version === 'string') diagnostics.remote_version = doc.version;
  diagnostics.remote_network_id = doc.id;
  diagnostics.remote_protocols = { ...(http ? { http } : {}), ...(pair ? { pair } : {}) };
  const retention = retentionOf(doc.retention);
  if (retention) diagnostics.remote_retention = retention;
  const remote = {
    network_id: doc.id,
    ...(typeof doc.name === 'string' ? { name: doc.name } : {}),
    direct_messages: caps?.direct_messages === true,
  };

  if (doc.id === input.localNetworkId) {
    return result('incompatible', 'network_id_mismatch', `the remote answers as network ${doc.id}, which is this network's own id`);
  }
  if (input.expected !== undefined && doc.id !== input.expected) {
    return result('incompatible', 'network_id_mismatch', `expected remote network ${input.expected}, the remote answers as ${doc.id}`);
  }
  if (!http?.includes(HTTP_PROTOCOL)) {
    return result('incompatible', 'unsupported_http_protocol', `the remote does not advertise ${HTTP_PROTOCOL} in protocols.http`);
  }
  const legacy = !pair || pair.length === 0;
  if (!legacy && !pair.includes(PAIR_PROTOCOL)) {
    return result(
      'incompatible',
      'unsupported_pair_protocol',
      `the remote does not advertise ${PAIR_PROTOCOL} (it offers ${pair.join(', ')})`,
    );
  }
  if (caps?.message_pagination !== 'cursor') {
    return result('incompatible', 'missing_cursor_pagination', 'the remote does not advertise capabilities.message_pagination: cursor');
  }
  if (!remote.direct_messages) {
    return result('degraded', 'direct_messages_unavailable', 'the remote has direct messages off: DMs are not relayed to it', remote);
  }
  if (legacy) {
    return result(
      'connected',
      'legacy_pair_protocol',
      `the remote advertises ${HTTP_PROTOCOL} without protocols.pair: treated as a legacy pairing candidate`,
      remote,
    );
  }
  return result('connected', undefined, undefined, remote);
}

/** The peer's retention as its document states it (only the known fields, of the right types). */
function retentionOf(v: unknown): PairingDiagnostics['remote_retention'] {
  const r = obj(v);
  if (!r) return undefined;
  const out = {
    ...(typeof r.max_age === 'string' ? { max_age: r.max_age } : {}),
    ...(typeof r.max_messages === 'number' ? { max_messages: r.max_messages } : {}),
  };
  return Object.keys(out).length > 0 ? out : undefined;
}
