// Server-rendered console pages for people who are not (validly) signed in: readable HTML, no
// script except the same-origin sign-in check, every dynamic value escaped.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attributes. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function page(title: string, body: string, withSignInCheck = false): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · svc console</title>
<link rel="icon" href="/console/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/console.css">
${withSignInCheck ? '<script type="module" src="/console/signin.js"></script>\n' : ''}</head>
<body class="page">
<main class="card" data-testid="page-${escapeHtml(title.toLowerCase().replace(/[^a-z]+/g, '-'))}">
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

/** How to get a link, for a protected console with no session. */
export function signInPage(base: string): string {
  const link = `${base}/console/?access_token=<token>`;
  return page(
    'Sign in',
    `<p>This svc network needs a credential to view its console.</p>
<p data-testid="sign-in-how">To sign in, run <code>svc console</code> on the server (in the folder of its
<code>svc.yaml</code>): it prints a one-time sign-in link for this browser.</p>
<p>Or open the console through a sign-in link from the operator:</p>
<pre><code>${escapeHtml(link)}</code></pre>
<p>Opening the link signs this browser in: the token is checked, kept server-side in a session cookie,
and removed from the address bar.</p>
<h2>Which token?</h2>
<p>Use a token with the <code>observe</code> scope only. A link carries its token in browser history and
server logs, so a token that can write or administer should not travel in a URL. A session has exactly
the scopes of its token: to send messages as a person from the console, the token needs
<code>write</code> and the server needs <code>server.human_ingress: true</code>.</p>
<h2>Operators</h2>
<p>Add a token to <code>auth.tokens</code> in the server's config, for example:</p>
<pre><code>auth:
  tokens:
    - id: console
      value_env: SVC_CONSOLE_TOKEN
      scopes: [observe]</code></pre>
<p>then share <code>${escapeHtml(base)}/console/?access_token=</code> followed by that token's value.</p>`,
    true,
  );
}

/** A bootstrap link whose token is not valid. */
export function invalidLinkPage(base: string): string {
  return page(
    'Sign-in link not valid',
    `<p>The token in this link is not valid on this network: it may be mistyped, or it was removed
from the server's configuration.</p>
<p>Ask the operator for a new link of the form <code>${escapeHtml(base)}/console/?access_token=&lt;token&gt;</code>.</p>
<p><a href="/console/">Go to the console</a></p>`,
  );
}

/** A one-time sign-in link (`/console/sign-in?code=`) that was used, expired or never issued. */
export function usedLinkPage(): string {
  return page(
    'Sign-in link expired or used',
    `<p data-testid="link-expired">This sign-in link was already used, has expired, or was never issued by this server.
Links work once, for a few minutes.</p>
<p>On the server's machine, run <code>svc console</code> (in the folder of its <code>svc.yaml</code>) for a new one.</p>
<p><a href="/console/">Go to the console</a></p>`,
  );
}

/** A valid credential that cannot view the console (no observe or admin scope). */
export function forbiddenPage(reason: string): string {
  return page(
    'Not allowed',
    `<p>This credential cannot open the console: ${escapeHtml(reason)}.</p>
<p>The console needs a token with the <code>observe</code> (or <code>admin</code>) scope; ask the operator for
a link with an observe-scoped token.</p>`,
  );
}

/** The short body of the bootstrap redirect, for clients that do not follow it. */
export function redirectBody(to: string): string {
  return page('Signed in', `<p>Continue to <a href="${escapeHtml(to)}">${escapeHtml(to)}</a>.</p>`);
}
