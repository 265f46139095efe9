// Client ID metadata documents (the MCP authorization spec's URL-form client_id): a client whose
// client_id is an https URL is not registered; its metadata is the JSON document at that URL. The
// provider finds clients through its adapter, so the adapter for the Client model is wrapped: a
// URL id is answered from the fetched document, every other id and model from the inner adapter.

import type { AdapterConstructor, AdapterPayload } from 'oidc-provider';
import { DelegatingAdapter } from './delegating-adapter.js';

/** Fetches the document at an https client_id; undefined when it cannot be had (refused, too big, slow, not JSON). */
export type MetadataFetch = (url: string) => Promise<unknown>;

/** The document fields the provider takes; anything else in it (keys, auth methods) is ignored. */
const KEPT = [
  'client_name',
  'client_uri',
  'logo_uri',
  'redirect_uris',
  'grant_types',
  'response_types',
  'scope',
  'software_id',
  'software_version',
];

/** Whether a client_id is in the URL form: https, a host, a path below the root, no fragment. */
export function isUrlClientId(id: string): boolean {
  if (!id.startsWith('https://')) return false;
  try {
    const u = new URL(id);
    return u.pathname !== '/' && u.hash === '' && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}

/** The client metadata a document gives `id`, or why it gives none. Always a public client. */
export function clientFromDocument(id: string, doc: unknown): { ok: true; client: AdapterPayload } | { ok: false; reason: string } {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return { ok: false, reason: 'the document is not a JSON object' };
  const d = doc as Record<string, unknown>;
  // The document must name itself, or anyone could serve another client's metadata.
  if (d.client_id !== id) return { ok: false, reason: 'the document client_id does not match its URL' };
  const uris = d.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === 'string'))
    return { ok: false, reason: 'the document has no redirect_uris' };
  const client: AdapterPayload = { client_id: id, token_endpoint_auth_method: 'none' };
  for (const k of KEPT) if (d[k] !== undefined) client[k] = d[k];
  return { ok: true, client };
}

/** Wraps `Inner` so the Client model also answers URL-form ids from their documents. */
export function withClientMetadataDocuments(Inner: AdapterConstructor, fetchDoc: MetadataFetch): AdapterConstructor {
  return class ClientMetadataAdapter extends DelegatingAdapter {
    constructor(model: string) {
      super(model, Inner);
    }
    override async find(id: string) {
      if (!this.isClient || !isUrlClientId(id)) return this.inner.find(id);
      const r = clientFromDocument(id, await fetchDoc(id));
      return r.ok ? r.client : undefined;
    }
  };
}
