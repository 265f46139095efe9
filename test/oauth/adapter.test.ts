// The oidc-provider adapter over the store's key/value table, on the memory and sqlite backends:
// what it stores is found by id, by a session's uid and a device code's user code, marked
// consumed, destroyed, revoked with its grant, and expires; the sweeper deletes expired rows; the
// keys are made once and read back.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/types.js';
import { adapterOver, kindOf, startSweeper } from '../../src/oauth/adapter.js';
import { loadKeys, newKeys } from '../../src/oauth/keys.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of ['memory', 'sqlite'] as const) {
  const t = suite<{ dir: string; store: Store }>(`oauth adapter over the store (${backend})`);
  t.before.each(async (ctx) => {
    ctx.dir = mkdtempSync(join(tmpdir(), 'svc-oauth-adapter-'));
    ctx.store = await openStore({ backend, path: join(ctx.dir, 'svc.db'), checkpoint_bytes: 64 * 1024 * 1024 });
  });
  t.after.each(async (ctx) => {
    await ctx.store.close();
    rmSync(ctx.dir, { recursive: true, force: true });
  });

  t('a payload is found by id in its own model only, by uid for a session, by user code for a device code', async ({ store }) => {
    const Adapter = adapterOver(store.kv);
    const sessions = new Adapter('Session');
    await sessions.upsert('s1', { uid: 'u1', accountId: 'alpha' }, 60);
    assert.equal(await sessions.find('s1'), { uid: 'u1', accountId: 'alpha' });
    assert.equal(await sessions.findByUid('u1'), { uid: 'u1', accountId: 'alpha' });
    assert.is(await new Adapter('Interaction').find('s1'), undefined);
    const devices = new Adapter('DeviceCode');
    await devices.upsert('d1', { userCode: 'ABCD-EFGH', grantId: 'g' }, 60);
    assert.is((await devices.findByUserCode('ABCD-EFGH'))?.userCode, 'ABCD-EFGH');
    assert.is(await devices.findByUid('ABCD-EFGH'), undefined);
    await sessions.destroy('s1');
    assert.is(await sessions.find('s1'), undefined);
  });

  t('consume marks the payload consumed (epoch seconds) and an upsert without expiry never expires', async ({ store }) => {
    const codes = new (adapterOver(store.kv))('AuthorizationCode');
    await codes.upsert('c1', { grantId: 'g1' }, 60);
    assert.is((await codes.find('c1'))?.consumed, undefined);
    const before = Math.floor(Date.now() / 1000);
    await codes.consume('c1');
    const consumed = (await codes.find('c1'))?.consumed;
    assert.ok(typeof consumed === 'number' && consumed >= before && consumed <= before + 2, String(consumed));
    const clients = new (adapterOver(store.kv))('Client');
    await clients.upsert('cl', { client_id: 'cl' });
    assert.is((await store.kv.get(kindOf('Client'), 'cl'))?.expires_at, undefined);
  });

  t('of two concurrent consumes of one code only one succeeds; the other is refused as invalid_grant', async ({ store }) => {
    const codes = new (adapterOver(store.kv))('AuthorizationCode');
    await codes.upsert('c2', { grantId: 'g1' }, 60);
    const results = await Promise.allSettled([codes.consume('c2'), codes.consume('c2')]);
    assert.equal(
      results.map((r) => r.status),
      ['fulfilled', 'rejected'],
    );
    const err = (results[1] as PromiseRejectedResult).reason as { error?: string; statusCode?: number };
    assert.is(err.error, 'invalid_grant');
    assert.is(err.statusCode, 400);
  });

  t('revoking by grant id deletes every token and code of the grant, and only those', async ({ store }) => {
    const A = adapterOver(store.kv);
    const [access, refresh, codes, grants] = [new A('AccessToken'), new A('RefreshToken'), new A('AuthorizationCode'), new A('Grant')];
    await access.upsert('a1', { grantId: 'g1' }, 60);
    await refresh.upsert('r1', { grantId: 'g1' }, 60);
    await codes.upsert('c1', { grantId: 'g1' }, 60);
    await access.upsert('a2', { grantId: 'g2' }, 60);
    await grants.upsert('g1', { accountId: 'alpha', clientId: 'cl' }, 60);
    await access.revokeByGrantId('g1');
    assert.is(await access.find('a1'), undefined);
    assert.is(await refresh.find('r1'), undefined);
    assert.is(await codes.find('c1'), undefined);
    assert.ok(await access.find('a2'));
    assert.ok(await grants.find('g1'), 'the grant itself is the provider’s to destroy (its revocation policy)');
  });

  t('a payload is gone once its lifetime has passed, and the sweeper deletes it', async ({ store }) => {
    const tokens = new (adapterOver(store.kv))('AccessToken');
    await tokens.upsert('long', { grantId: 'g' }, 60);
    await tokens.upsert('short', { grantId: 'g' }, 1);
    assert.ok(await tokens.find('short'));
    const stop = startSweeper(store.kv, 100);
    try {
      await sleep(1400);
    } finally {
      stop();
    }
    assert.is(await tokens.find('short'), undefined);
    assert.is(await store.kv.sweep(Date.now()), 0, 'the sweeper already deleted the expired row');
    assert.ok(await tokens.find('long'));
  });

  t('the keys are made once: every later load reads the stored ones', async ({ store }) => {
    let made = 0;
    const candidate = () => {
      made++;
      return newKeys();
    };
    const [k1, k2] = await Promise.all([loadKeys(store.kv, candidate), loadKeys(store.kv, candidate)]);
    const k3 = await loadKeys(store.kv, candidate);
    assert.equal(k1, k2);
    assert.equal(k1, k3);
    assert.ok(made >= 1 && made <= 2, 'at most the two concurrent loads made a candidate; one was kept');
    assert.is(k1.jwks.keys[0]?.kty, 'RSA');
    assert.ok(k1.jwks.keys[0]?.d, 'the stored key is the private key');
    assert.ok(k1.cookies[0]!.length >= 40);
  });

  t.run();
}
