// The SPEC's preflight for long-running clients, as a pure check of the network document: run it
// before attaching, and fail before waking a runtime when the server deterministically cannot serve.

import { ATTACH_PROTOCOL, HTTP_PROTOCOL, type NetworkDocument } from '../protocol/types.js';

export interface PreflightWants {
  /** The network the runtime is configured for; omitted: whatever the server hosts. */
  networkId?: string;
  /** The attachment declares a DM scope. */
  dms: boolean;
}

export interface PreflightProblem {
  code: 'network_mismatch' | 'unsupported_protocol' | 'dms_disabled';
  message: string;
}

/** The first deterministic incompatibility, or undefined. `legacyAttach` means HELLO.version must be checked. */
export function preflightProblem(doc: Partial<NetworkDocument>, wants: PreflightWants): PreflightProblem | undefined {
  if (wants.networkId !== undefined && doc.id !== wants.networkId) {
    return { code: 'network_mismatch', message: `the server hosts network ${String(doc.id)}, not ${wants.networkId}` };
  }
  const http = doc.protocols?.http;
  // Protocols are additive: an older server may omit them; only a list without ours is a refusal.
  if (Array.isArray(http) && http.length > 0 && !http.includes(HTTP_PROTOCOL)) {
    return { code: 'unsupported_protocol', message: `the server speaks ${http.join(', ')}, not ${HTTP_PROTOCOL}` };
  }
  if (!attachSupported(doc)) {
    return {
      code: 'unsupported_protocol',
      message: `the server offers no ${ATTACH_PROTOCOL} attachment (protocols.attach and capabilities.attachment_protocol)`,
    };
  }
  if (wants.dms && doc.capabilities?.direct_messages !== true) {
    return {
      code: 'dms_disabled',
      message: 'this attachment declares DMs, and direct messages are off on this server (server.direct_messages)',
    };
  }
  return undefined;
}

/** protocols.attach lists ours, or the legacy rule: capabilities.attachment_protocol is websocket. */
export function attachSupported(doc: Partial<NetworkDocument>): boolean {
  const attach = doc.protocols?.attach;
  if (Array.isArray(attach) && attach.includes(ATTACH_PROTOCOL)) return true;
  return doc.capabilities?.attachment_protocol === 'websocket';
}

/** Whether the HELLO version must be checked (the server qualified only by the legacy rule). */
export function needsHelloCheck(doc: Partial<NetworkDocument>): boolean {
  const attach = doc.protocols?.attach;
  return !(Array.isArray(attach) && attach.includes(ATTACH_PROTOCOL));
}
