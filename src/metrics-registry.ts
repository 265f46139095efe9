// Prometheus metrics (prom-client), one registry per app. Series names are ours (the spec leaves
// them open); every label value is a route pattern, status, direction or pairing id, never a token.

import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: SeriesCounter;
  httpDuration: SeriesHistogram;
  httpWaited: SeriesCounter;
  sseSubscribers: Gauge;
  attachClients: Gauge;
  brokerDrops: Counter<'surface'>;
  eventsPublished: SeriesCounter;
  storeHealthy: Gauge;
  storeWriteDuration: SeriesHistogram;
  searchIndexLag: Gauge;
  storeDataBytes: Gauge;
  relayFrames: Counter<'pairing' | 'direction'>;
  relayConnections: Gauge<'pairing'>;
  relayFailures: Counter<'pairing'>;
  relayOutboxPending: Gauge<'pairing'>;
  relayRefused: Counter<'pairing' | 'reason'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'svc_process_' });
  const r = [registry];
  return {
    registry,
    httpRequests: new SeriesCounter(registry, 'svc_http_requests_total', 'HTTP requests by route pattern, method and status', [
      'route',
      'method',
      'status',
    ]),
    httpDuration: new SeriesHistogram(
      registry,
      'svc_http_request_duration_seconds',
      'HTTP request latency by route pattern',
      ['route', 'method'],
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    ),
    httpWaited: new SeriesCounter(
      registry,
      'svc_http_requests_waited_total',
      'HTTP requests that waited for a later event-loop iteration: the one they arrived in had spent its time for starting requests',
      [],
    ),
    sseSubscribers: new Gauge({ name: 'svc_sse_subscribers', help: 'Open SSE streams', registers: r }),
    attachClients: new Gauge({ name: 'svc_attach_clients', help: 'Attachments past READY', registers: r }),
    brokerDrops: new Counter({
      name: 'svc_broker_drops_total',
      help: 'Subscribers dropped for falling behind, by surface',
      labelNames: ['surface'],
      registers: r,
    }),
    eventsPublished: new SeriesCounter(registry, 'svc_events_published_total', 'Events published to the broker', []),
    storeHealthy: new Gauge({ name: 'svc_store_healthy', help: '1 when the store answers its health probe', registers: r }),
    storeWriteDuration: new SeriesHistogram(
      registry,
      'svc_store_write_duration_seconds',
      'Durable write latency (apply + journal fsync)',
      [],
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    ),
    searchIndexLag: new Gauge({
      name: 'svc_search_index_lag_seconds',
      help: 'Age of the oldest acknowledged message the search index has not taken in yet (0: none)',
      registers: r,
    }),
    storeDataBytes: new Gauge({
      name: 'svc_store_data_bytes',
      help: "Size of the store's data: sqlite's database pages and search file (0 on Postgres, whose server holds it)",
      registers: r,
    }),
    relayFrames: new Counter({
      name: 'svc_relay_frames_total',
      help: 'Pairing relay frames by pairing and direction (in|out)',
      labelNames: ['pairing', 'direction'],
      registers: r,
    }),
    relayConnections: new Gauge({
      name: 'svc_relay_connected',
      help: '1 when the pairing relay socket is open',
      labelNames: ['pairing'],
      registers: r,
    }),
    relayFailures: new Counter({
      name: 'svc_relay_failures_total',
      help: 'Failed pairing requests (discovery or relay)',
      labelNames: ['pairing'],
      registers: r,
    }),
    relayOutboxPending: new Gauge({
      name: 'svc_relay_outbox_pending',
      help: 'Messages waiting to be relayed',
      labelNames: ['pairing'],
      registers: r,
    }),
    relayRefused: new Counter({
      name: 'svc_relay_refused_total',
      help: 'Relayed messages the paired network refused for good (not retried), by pairing and reason',
      labelNames: ['pairing', 'reason'],
      registers: r,
    }),
  };
}

// ---- series found once, updated directly ----
//
// prom-client's Counter and Histogram hash, sort and validate a labels object on every update: a
// few µs per request on the ingest path, which updates three of them. These keep one record per
// series, which callers look up once (by label values) and then update in place; at scrape time
// they hand prom-client's registry the values its own Counter and Histogram would
// (test/metrics/series.unit.test.ts compares the two exports).

/** One counter series: its labels and value. */
export class CounterSeries {
  value = 0;
  constructor(readonly labels: Record<string, string>) {}

  inc(by = 1): void {
    this.value += by;
  }
}

/** A counter whose series are looked up by label values (in `labelNames` order). */
export class SeriesCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private readonly all = new Map<string, CounterSeries>();

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
  ) {
    if (labelNames.length === 0) this.series();
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of these label values, created at zero. */
  series(...values: string[]): CounterSeries {
    const key = values.join('\u0000');
    let s = this.all.get(key);
    if (!s) {
      s = new CounterSeries(labelsOf(this.labelNames, values));
      this.all.set(key, s);
    }
    return s;
  }

  /** What the registry reads at a scrape (prom-client's Counter.get shape). */
  get(): { name: string; help: string; type: string; values: { value: number; labels: Record<string, string> }[]; aggregator: string } {
    const values = [...this.all.values()].map((s) => ({ value: s.value, labels: s.labels }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Zeroes every series (callers keep the series they looked up, so none is dropped). */
  reset(): void {
    for (const s of this.all.values()) s.value = 0;
  }
}

/** One histogram series: counts per bucket (not cumulative), sum and count. */
export class HistogramSeries {
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Record<string, string>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    this.sum += value;
    this.count += 1;
    for (let i = 0; i < this.bounds.length; i++) {
      if (value <= this.bounds[i]!) {
        this.counts[i]! += 1;
        return;
      }
    }
  }
}

interface ValuePair {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

/** A histogram whose series are looked up by label values (in `labelNames` order). */
export class SeriesHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly all = new Map<string, HistogramSeries>();

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    if (labelNames.length === 0) this.series();
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of these label values, created empty. */
  series(...values: string[]): HistogramSeries {
    const key = values.join('\u0000');
    let s = this.all.get(key);
    if (!s) {
      s = new HistogramSeries(labelsOf(this.labelNames, values), this.bounds);
      this.all.set(key, s);
    }
    return s;
  }

  /** What the registry formats at a scrape (prom-client's Histogram.getForPromString shape). */
  getForPromString(): { name: string; help: string; type: string; values: ValuePair[]; aggregator: string } {
    const values: ValuePair[] = [];
    const pair = (
      labels: ValuePair['labels'],
      value: number,
      metricName: string,
      exemplar: null | undefined,
      sharedLabels: Record<string, string>,
    ): ValuePair => ({
      labels,
      sharedLabels,
      value,
      metricName,
      exemplar,
    });
    for (const s of this.all.values()) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.counts[i]!;
        values.push(pair({ le }, acc, `${this.name}_bucket`, null, s.labels));
      });
      values.push(
        pair({ le: '+Inf' }, s.count, `${this.name}_bucket`, null, s.labels),
        pair({}, s.sum, `${this.name}_sum`, undefined, s.labels),
        pair({}, s.count, `${this.name}_count`, undefined, s.labels),
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The JSON form (prom-client's Histogram.get: shared labels merged into each value's labels). */
  get(): ReturnType<SeriesHistogram['getForPromString']> {
    const data = this.getForPromString();
    data.values = data.values.map(
      ({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } }) as ValuePair,
    );
    return data;
  }

  /** Empties every series (callers keep the series they looked up, so none is dropped). */
  reset(): void {
    for (const s of this.all.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}

function labelsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  if (values.length !== names.length) throw new Error(`expected label values for ${names.join(', ') || 'no labels'}, got ${values.length}`);
  const labels: Record<string, string> = {};
  names.forEach((n, i) => (labels[n] = values[i]!));
  return labels;
}
