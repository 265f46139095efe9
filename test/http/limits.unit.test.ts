import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../src/errors.js';
import { RequestLimits } from '../../src/request-limits/limiter.js';
import { TokenBuckets, burstFor, clientAddress } from '../../src/http/token-buckets.js';
import type { Principal } from '../../src/auth/principal.js';

const t = suite('a token bucket');

t('lets a full burst through, then refuses with the time until the next token', () => {
  const b = new TokenBuckets(2, 4);
  assert.equal(
    [0, 0, 0, 0].map(() => b.take('k', 0).ok),
    [true, true, true, true],
  );
  assert.equal(b.take('k', 0), { ok: false, retryAfterMs: 500 });
  assert.equal(b.take('k', 250), { ok: false, retryAfterMs: 250 });
  assert.equal(b.take('k', 500), { ok: true });
});

t('refills at the rate and never above the burst', () => {
  const b = new TokenBuckets(10, 3);
  for (let i = 0; i < 3; i++) b.take('k', 0);
  // 10 seconds idle refills to 3, not 100
  assert.equal(
    [1, 2, 3, 4].map(() => b.take('k', 10_000).ok),
    [true, true, true, false],
  );
});

t('keeps keys apart', () => {
  const b = new TokenBuckets(1, 1);
  assert.is(b.take('a', 0).ok, true);
  assert.is(b.take('a', 0).ok, false);
  assert.is(b.take('b', 0).ok, true);
});

t('forgets buckets that have refilled', () => {
  const b = new TokenBuckets(1, 2);
  b.take('a', 0);
  b.take('b', 1500);
  b.sweep(999);
  assert.is(b.size, 2);
  b.sweep(1000);
  assert.is(b.size, 1);
  b.sweep(2500);
  assert.is(b.size, 0);
});

t('refuses nonsense rates', () => {
  assert.throws(() => new TokenBuckets(0, 1), RangeError);
  assert.throws(() => new TokenBuckets(1, 0), RangeError);
});

t('gives two seconds of burst, at least one request', () => {
  assert.equal([0.1, 0.5, 1, 2.5, 100].map(burstFor), [1, 1, 2, 5, 200]);
});

const limits = suite('the request limiter');

function req(url: string, remoteAddress: string): IncomingMessage {
  return { url, socket: { remoteAddress } } as unknown as IncomingMessage;
}
const tokenA: Principal = { kind: 'static', tokenId: 'a', scopes: new Set(['observe']), credentialKey: 'token:a' };
const tokenB: Principal = { kind: 'static', tokenId: 'b', scopes: new Set(['observe']), credentialKey: 'token:b' };

function refusal(fn: () => void): AppError | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err as AppError;
  }
}

limits('is off by default and admits everything', () => {
  const l = new RequestLimits({ per_address_rps: 0, per_credential_rps: 0 }, () => 0);
  assert.is(l.enabled, false);
  for (let i = 0; i < 1000; i++) l.admit(req('/v1/rooms', '10.0.0.1'), tokenA);
});

limits('refuses a flooding credential with 429 and Retry-After while another is served', () => {
  const l = new RequestLimits({ per_address_rps: 0, per_credential_rps: 1 }, () => 0);
  l.admit(req('/v1/rooms', '10.0.0.1'), tokenA);
  l.admit(req('/v1/rooms', '10.0.0.1'), tokenA);
  const e = refusal(() => l.admit(req('/v1/rooms', '10.0.0.1'), tokenA));
  assert.ok(e instanceof AppError);
  assert.is(e.status, 429);
  assert.is(e.code, 'too_many_requests');
  assert.equal(e.headers, { 'retry-after': '1' });
  assert.is(e.message, 'too many requests from this credential (limit 1 per second); retry after 1 s');
  assert.is(
    refusal(() => l.admit(req('/v1/rooms', '10.0.0.1'), tokenB)),
    undefined,
  );
});

limits('limits each client address, anonymous or not, and never the health probes', () => {
  const l = new RequestLimits({ per_address_rps: 0.5, per_credential_rps: 0 }, () => 0);
  l.admit(req('/v1/rooms', '10.0.0.1'), undefined);
  const e = refusal(() => l.admit(req('/v1/rooms?x=1', '::ffff:10.0.0.1'), tokenA));
  assert.is(e?.headers['retry-after'], '2');
  assert.match(e!.message, /client address/);
  assert.is(
    refusal(() => l.admit(req('/v1/rooms', '10.0.0.2'), undefined)),
    undefined,
  );
  for (let i = 0; i < 10; i++) l.admit(req('/healthz', '10.0.0.1'), undefined);
});

limits('applies a reloaded configuration', () => {
  const l = new RequestLimits({ per_address_rps: 1, per_credential_rps: 0 }, () => 0);
  l.admit(req('/a', '1.1.1.1'), undefined);
  l.admit(req('/a', '1.1.1.1'), undefined);
  assert.ok(refusal(() => l.admit(req('/a', '1.1.1.1'), undefined)));
  l.configure({ per_address_rps: 0, per_credential_rps: 0 });
  assert.is(l.enabled, false);
  l.admit(req('/a', '1.1.1.1'), undefined);
});

limits('folds IPv4-mapped IPv6 addresses', () => {
  assert.is(clientAddress(req('/', '::ffff:127.0.0.1')), '127.0.0.1');
  assert.is(clientAddress(req('/', '::1')), '::1');
});

t.run();
limits.run();
