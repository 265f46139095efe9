// Standard Webhooks signatures (HMAC-SHA256 over `id.timestamp.body`), made by the
// `standardwebhooks` package. A secret in the spec's `whsec_<base64>` form is decoded; any other
// string is used as its UTF-8 bytes.

import { Webhook } from 'standardwebhooks';

/** How the POSTs svc signs this way name their sender. */
export const USER_AGENT = 'svc-webhooks';

/** The package's signer/verifier for a configured secret. */
export function webhookOf(secret: string): Webhook {
  return secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(new Uint8Array(Buffer.from(secret, 'utf8')), { format: 'raw' });
}

/** The three Standard Webhooks headers of one attempt. */
export function signedHeaders(w: Webhook, id: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': w.sign(id, at, body),
  };
}
