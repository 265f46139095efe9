// The base of svc's wrappers around an oidc-provider storage adapter (client-metadata.ts,
// registration.ts): every call goes to the adapter it wraps, so a wrapper writes only the calls it
// changes, for the models it changes them for.

import type { Adapter, AdapterConstructor, AdapterPayload } from 'oidc-provider';

export class DelegatingAdapter implements Adapter {
  protected readonly inner: Adapter;
  /** Whether this instance serves the Client model (the one both wrappers change). */
  protected readonly isClient: boolean;

  constructor(model: string, Inner: AdapterConstructor) {
    this.inner = new Inner(model);
    this.isClient = model === 'Client';
  }
  upsert(id: string, payload: AdapterPayload, expiresIn: number) {
    return this.inner.upsert(id, payload, expiresIn);
  }
  find(id: string) {
    return this.inner.find(id);
  }
  findByUserCode(code: string) {
    return this.inner.findByUserCode(code);
  }
  findByUid(uid: string) {
    return this.inner.findByUid(uid);
  }
  consume(id: string) {
    return this.inner.consume(id);
  }
  destroy(id: string) {
    return this.inner.destroy(id);
  }
  revokeByGrantId(grantId: string) {
    return this.inner.revokeByGrantId(grantId);
  }
}
