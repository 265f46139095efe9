// The hot-path metrics (HTTP requests and latency, store writes, published events) are kept by
// src/metrics.ts's own series classes; a scrape must read exactly as prom-client's Counter and
// Histogram would have it, in text and in JSON.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Counter, Histogram, Registry } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from '../../src/metrics-registry.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const ROUTES = ['/v1/messages', '/v1/rooms/:room_id', 'unmatched', '/weird "route"\\with\nescapes'];
const METHODS = ['GET', 'POST', 'HEAD'];

/** The same observations through prom-client and through the series classes. */
function both(n: number): { ours: Registry; theirs: Registry } {
  const ours = new Registry();
  const theirs = new Registry();
  const c1 = new Counter({ name: 'x_requests_total', help: 'requests', labelNames: ['route', 'method', 'status'], registers: [theirs] });
  const h1 = new Histogram({
    name: 'x_duration_seconds',
    help: 'latency',
    labelNames: ['route', 'method'],
    buckets: BUCKETS,
    registers: [theirs],
  });
  const u1 = new Histogram({ name: 'x_writes_seconds', help: 'writes', buckets: BUCKETS, registers: [theirs] });
  const e1 = new Counter({ name: 'x_events_total', help: 'events', registers: [theirs] });
  const c2 = new SeriesCounter(ours, 'x_requests_total', 'requests', ['route', 'method', 'status']);
  const h2 = new SeriesHistogram(ours, 'x_duration_seconds', 'latency', ['route', 'method'], BUCKETS);
  const u2 = new SeriesHistogram(ours, 'x_writes_seconds', 'writes', [], BUCKETS);
  const e2 = new SeriesCounter(ours, 'x_events_total', 'events', []);
  let seed = 3;
  const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let i = 0; i < n; i++) {
    const route = ROUTES[Math.floor(rand() * ROUTES.length)]!;
    const method = METHODS[Math.floor(rand() * METHODS.length)]!;
    const status = String([200, 404, 401][Math.floor(rand() * 3)]);
    // Values on bucket bounds, between them and past the last one.
    const v = rand() < 0.2 ? BUCKETS[Math.floor(rand() * BUCKETS.length)]! : rand() ** 4 * 4;
    c1.inc({ route, method, status });
    c2.series(route, method, status).inc();
    h1.observe({ route, method }, v);
    h2.series(route, method).observe(v);
    u1.observe(v / 3);
    u2.series().observe(v / 3);
    e1.inc();
    e2.series().inc();
  }
  return { ours, theirs };
}

const t = suite('metric series read like prom-client');

t('the Prometheus text is identical', async () => {
  const { ours, theirs } = both(5000);
  assert.is(await ours.metrics(), await theirs.metrics());
});

t('the JSON form is identical', async () => {
  const { ours, theirs } = both(500);
  assert.equal(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
});

t('an unlabeled series reads zero before its first update, like prom-client', async () => {
  const { ours, theirs } = both(0);
  assert.is(await ours.metrics(), await theirs.metrics());
});

t('a series is one record however often it is looked up, and label counts are checked', () => {
  const r = new Registry();
  const c = new SeriesCounter(r, 'y_total', 'y', ['a']);
  assert.is(c.series('1'), c.series('1'));
  assert.throws(() => c.series('1', '2'));
  const h = new SeriesHistogram(r, 'y_seconds', 'y', [], [1]);
  assert.throws(() => h.series().observe(Number.NaN));
});

t.run();
