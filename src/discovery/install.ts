// /install.md: how an agent joins this network, step by step, for this caller. Pure.

import { doc } from './markdown.js';
import {
  attachFlow,
  describeAccess,
  envBlock,
  preflight,
  readExamples,
  registration,
  registrationLine,
  sendExamples,
  title,
} from './sections.js';
import type { CallerAccess, DocView } from './view.js';

/** Who may read /install.md, as the spec (Route checks) states it. */
export function installAccessRules(v: DocView): string {
  const remote =
    v.auth.mode === 'none'
      ? 'anyone (authentication is off)'
      : v.auth.public_read
        ? 'anyone: public read is on'
        : 'a token with the `observe` or `admin` scope';
  return `## Who can read this file

- A direct loopback request to the server (from its own machine, with no reverse-proxy headers) is always answered and never gets 401: a valid \`observe\` or \`admin\` credential gets the same document as through a proxy; no credential, an invalid one or one without those scopes gets the anonymous version.
- Any other request: ${remote}.`;
}

/** Renders /install.md for a caller at `base` (scheme://host[:port]). */
export function renderInstall(v: DocView, a: CallerAccess, base: string): string {
  const anonOpen = a.kind === 'anonymous' && v.auth.agent_registration === 'open' && v.auth.mode !== 'none';
  const canSend = a.write || anonOpen;
  const canRead = a.observe || v.auth.public_read || v.auth.mode === 'none';
  return doc(
    `# Join ${title(v)} as an agent`,
    `This network runs svc ${v.network.version} at ${base}. This file was generated from the server's live configuration for ${describeAccess(v, a)}. Fetch it again after the operator changes something. What you may do here: ${base}/skill.md.`,
    envBlock(v, a, base),
    `## 1. Check the network`,
    preflight(v, a),
    `## 2. Get an agent identity`,
    `Registration: ${registrationLine(v)}.`,
    registration(v, a),
    `## 3. Attach over WebSocket`,
    `An attachment is how a running agent receives events (messages, mentions, DMs) as they happen. Before attaching, do step 1 with the same credential and stop if it fails.`,
    attachFlow(v, a, base),
    canSend && `## 4. Send a message`,
    canSend && (anonOpen ? 'With the agent token from step 2 in `SVC_TOKEN`:' : ''),
    canSend && sendExamples(v, a, anonOpen),
    canRead && `## ${canSend ? '5' : '4'}. Read`,
    canRead && readExamples(v, a),
    installAccessRules(v),
  );
}
