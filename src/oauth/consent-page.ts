// The HTML of the OAuth consent page and its refusals, in the console's look (console.css for the
// card, oauth.css for the form). No script; every dynamic value escaped. Pure.

import { escapeHtml } from '../console/pages.js';

/** What the page shows about the client that asks. */
export interface ConsentClient {
  id: string;
  name?: string;
  redirectHost: string;
}

export interface ConsentView {
  uid: string;
  client: ConsentClient;
  /** Agents the person may let the client act as, with their display names. */
  agents: { id: string; name?: string }[];
  /** Whether the person may register a new agent for it. */
  mayRegister: boolean;
}

function page(title: string, body: string, extraHead = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
${extraHead}<title>${escapeHtml(title)} · svc console</title>
<link rel="icon" href="/console/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/console.css">
<link rel="stylesheet" href="/console/oauth.css">
</head>
<body class="page">
<main class="card consent" data-testid="oauth-${escapeHtml(title.toLowerCase().replace(/[^a-z]+/g, '-'))}">
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

const consentPath = (uid: string) => `/console/oauth/${encodeURIComponent(uid)}`;

function clientFacts(c: ConsentClient): string {
  return `<dl>
<dt>Application</dt><dd data-testid="client-name">${escapeHtml(c.name ?? '(no name given)')}</dd>
<dt>Returns to</dt><dd data-testid="client-host">${escapeHtml(c.redirectHost)}</dd>
<dt>Client id</dt><dd><code data-testid="client-id">${escapeHtml(c.id)}</code></dd>
</dl>`;
}

/** The consent form: which agent the client will act as, then Approve or Deny. */
export function consentPage(v: ConsentView): string {
  const options = v.agents.map((a) => `<option value="${escapeHtml(a.id)}">${escapeHtml(a.name ? `${a.name} (${a.id})` : a.id)}</option>`);
  if (v.mayRegister) options.push('<option value="">Register a new agent (name below)</option>');
  const register = v.mayRegister
    ? `<label for="new-name">Name of the new agent</label>
<input type="text" id="new-name" name="new_name" maxlength="64" autocomplete="off" data-testid="new-agent-name">`
    : '';
  return page(
    'Allow access',
    `<p>An MCP client asks to use this svc network through <code>/v1/mcp</code>, acting as one agent: it
will read and send messages as that agent until you revoke it.</p>
${clientFacts(v.client)}
<form method="post" action="${consentPath(v.uid)}">
<fieldset>
<legend>Act as</legend>
<label for="agent">Agent</label>
<select id="agent" name="agent" data-testid="agent-picker">${options.join('')}</select>
${register}
</fieldset>
<div class="actions">
<button type="submit" name="decision" value="approve" class="approve" data-testid="approve">Approve</button>
<button type="submit" name="decision" value="deny" data-testid="deny">Deny</button>
</div>
</form>
<p class="muted">Only approve a client you started yourself. Approving grants it a short-lived access token
and a refresh token; <code>svc agents grants</code> lists and revokes grants.</p>`,
  );
}

/** The person is not signed in to the console in this browser. */
export function signInFirstPage(uid: string, client: ConsentClient | undefined): string {
  return page(
    'Sign in to continue',
    `<p>An MCP client asks for access to this svc network. To approve it, sign in to this server's console
in this browser first.</p>
${client ? clientFacts(client) : ''}
<p>Run <code>svc console</code> on the server (in the folder of its <code>svc.yaml</code>) and open the sign-in
link it prints in this browser, or open a console link the operator gave you. Then come back here:</p>
<p><a href="${consentPath(uid)}" data-testid="back-to-consent">I have signed in: continue</a></p>
<p class="muted">This request stays open for 10 minutes; after that, start again from the client.</p>`,
  );
}

/**
 * The first answer to a visitor without a session cookie: a cross-site redirect (the client sent
 * the browser here) does not carry the SameSite=Strict console cookie, a same-origin reload does.
 */
export function reloadPage(uid: string): string {
  const again = `${consentPath(uid)}?again=1`;
  return page(
    'Checking your session',
    `<p><a href="${escapeHtml(again)}">Continue</a></p>`,
    `<meta http-equiv="refresh" content="0;url=${escapeHtml(again)}">\n`,
  );
}

/** The person is signed in but may not let a client act as any agent. */
export function cannotGrantPage(client: ConsentClient): string {
  return page(
    'Not allowed',
    `<p>Your console session cannot let a client act as an agent: it owns no agent, and it may not
register one (an <code>attach</code> or <code>admin</code> scope, or a token naming agents, is needed).</p>
${clientFacts(client)}
<p>Ask the operator for a console link with such a token.</p>`,
  );
}

/** The interaction is unknown, expired, or was started in another browser. */
export function expiredPage(): string {
  return page(
    'Request expired',
    `<p>This authorization request is not open any more: it expired (after 10 minutes), was already
answered, or was started in another browser. Start again from the client.</p>`,
  );
}

/** An answer the consent form cannot take (an agent not allowed, a missing name), with the way back. */
export function refusedPage(reason: string, uid: string): string {
  return page(
    'Not allowed',
    `<p data-testid="refusal">${escapeHtml(reason)}.</p>
<p><a href="${consentPath(uid)}">Back to the request</a></p>`,
  );
}

/**
 * An authorization request refused before any person saw it, shown here instead of sending the
 * browser to a redirect URI that nobody verified (RFC 9700 section 4.11.2).
 */
export function authorizationErrorPage(error: string, description: string | undefined): string {
  return page(
    'Request refused',
    `<p>This authorization request was refused, so the browser is not sent back to the application.</p>
<dl>
<dt>Error</dt><dd><code data-testid="oauth-error">${escapeHtml(error)}</code></dd>
${description ? `<dt>Why</dt><dd data-testid="oauth-error-description">${escapeHtml(description)}</dd>\n` : ''}</dl>
<p>Tell the application's maker, or start again from the application.</p>`,
  );
}
