// The three systems under test behind one shape: svc serve, the baseline, NATS JetStream.

import type { JetStreamClient, NatsConnection } from 'nats';
import { closedLoop, paced, postBytes } from './http.js';
import { natsIngest, natsPublish, type NatsServer } from './nats.js';
import { SubscriberPool } from './pool.js';
import { INGEST_TEXT, NETWORK, sendBody, svcIngestRequest, TOKEN, type SvcServer } from './svc.js';
import type { BaselineServer } from './baseline-proc.js';
import type { SubscriberKind } from '../subscribers.js';
import type { Samples } from './stats.js';

export type TargetName = 'svc' | 'baseline' | 'nats';
/** The Postgres rows' targets (svc on a Postgres store) besides the three systems. */
export type AnyTargetName = TargetName | 'svc_postgres' | 'svc_postgres_cross' | 'svc_no_receipts';

export interface PublishResult {
  sent: number;
  ok: number;
  errors: number;
  firstError?: string;
  rate: number;
  seconds: number;
  /** Send to answer per accepted publish (ms), where the publisher measures it. */
  latency?: Samples;
}

/** What one closed-loop ingest measured. */
export interface IngestRun {
  rate: number;
  ok: number;
  errors: number;
  firstError?: string;
  latency: Samples;
}

/** `until`, when given, ends the publishing early (checked between sends). */
export type PublishOptions = { rate: number; seconds: number; inflight: number; max?: number; until?: () => boolean };

export interface Target {
  name: AnyTargetName;
  pid: number | undefined;
  /** The port subscribers connect to, for the scenarios that hold their own subscriber processes. */
  port?: number;
  /** The publishing server's pid when it is not `pid` (its CPU per message is reported too). */
  pubPid?: number;
  /** The database server's pid when the target has one (its CPU per message is reported too). */
  dbPid?: number;
  /** Transactions the database has run so far (statistics lag by about a second), when it has one. */
  dbTransactions?: () => Promise<number>;
  /** Closed-loop ingest into a room nobody follows. */
  ingest(clients: number, seconds: number): Promise<IngestRun>;
  /** How far search is behind the acknowledged writes now (ms; `svc_search_index_lag_seconds`), where the target indexes apart. */
  searchLagMs?: () => Promise<number | null>;
  /** Forks `n` subscribers of `kind` that follow the fan-out room. */
  subscribe(kind: SubscriberKind, n: number): Promise<SubscriberPool>;
  /** Publishes into the fan-out room; `text(i, t)` stamps message i sent at time t. */
  publish(opts: PublishOptions, text: (i: number, t: number) => string): Promise<PublishResult>;
  stop(): Promise<void>;
}

/** The search index's lag from svc's /metrics, in ms (null when the series is absent or the scrape failed). */
async function searchLagMs(port: number): Promise<number | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const line = (await r.text()).split('\n').find((l) => l.startsWith('svc_search_index_lag_seconds '));
    return line ? Number(line.split(' ')[1]) * 1000 : null;
  } catch {
    return null;
  }
}

/** svc serve, publishing as the member agent `pub` with the bench token. */
export function svcTarget(s: SvcServer, name: AnyTargetName = 'svc'): Target {
  const ingestReq = svcIngestRequest();
  return {
    name,
    pid: s.pid,
    port: s.port,
    ingest: (clients, seconds) => closedLoop(s.port, clients, seconds, () => ingestReq),
    searchLagMs: () => searchLagMs(s.port),
    subscribe: (kind, n) => SubscriberPool.start({ kind, port: s.port, n, token: TOKEN, network: NETWORK }),
    publish: (opts, text) => paced(s.port, opts, (i, t) => postBytes('/v1/messages', sendBody('fanout', text(i, t)), TOKEN)),
    stop: () => s.stop(),
  };
}

/** Two svc instances on one Postgres schema: subscribers attach to `sub`, the publisher sends to `pub`. */
export function crossTarget(pub: SvcServer, sub: SvcServer): Target {
  return {
    name: 'svc_postgres_cross',
    pid: sub.pid,
    pubPid: pub.pid,
    ingest: () => Promise.reject(new Error('the cross-instance target only fans out')),
    subscribe: (kind, n) => SubscriberPool.start({ kind, port: sub.port, n, token: TOKEN, network: NETWORK }),
    publish: (opts, text) => paced(pub.port, opts, (i, t) => postBytes('/v1/messages', sendBody('fanout', text(i, t)), TOKEN)),
    stop: async () => {
      await Promise.all([pub.stop(), sub.stop()]);
    },
  };
}

/** The baseline server: same request bodies, no token. */
export function baselineTarget(b: BaselineServer): Target {
  const ingestReq = postBytes('/v1/messages', sendBody('ingest', INGEST_TEXT));
  return {
    name: 'baseline',
    pid: b.pid,
    port: b.port,
    ingest: (clients, seconds) => closedLoop(b.port, clients, seconds, () => ingestReq),
    subscribe: (_kind, n) => SubscriberPool.start({ kind: 'baseline', port: b.port, n }),
    publish: (opts, text) => paced(b.port, opts, (i, t) => postBytes('/v1/messages', sendBody('fanout', text(i, t)))),
    stop: () => b.stop(),
  };
}

/** NATS JetStream: publishes the same JSON bodies with a durable ack. */
export function natsTarget(n: NatsServer, nc: NatsConnection, js: JetStreamClient): Target {
  const body = sendBody('ingest', INGEST_TEXT);
  return {
    name: 'nats',
    pid: n.pid,
    ingest: (clients, seconds) => natsIngest(js, clients, seconds, () => body),
    subscribe: (_kind, count) => SubscriberPool.start({ kind: 'nats', port: n.port, n: count, subject: 'bench.fanout' }),
    publish: (opts, text) => natsPublish(js, opts, (i, t) => sendBody('fanout', text(i, t))),
    stop: async () => {
      await nc.close();
      await n.stop();
    },
  };
}
