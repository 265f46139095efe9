// NATS JetStream as a reference: nats-server from Debian's packages (installed when missing),
// started with -js and a file store in a temp folder, driven through the nats npm client.

import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { connect, StorageType, type JetStreamClient, type NatsConnection } from 'nats';
import { freePort, launch, stop, waitForLine } from './procs.js';
import { nowMs, Samples } from './stats.js';

export interface NatsServer {
  port: number;
  pid: number | undefined;
  version: string;
  stop(): Promise<void>;
}

function which(bin: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The nats-server binary, installing Debian's package when missing; or why it is unavailable. */
export function ensureNats(opts: { install: boolean }): { bin: string } | { note: string } {
  const found = which('nats-server');
  if (found) return { bin: found };
  if (!opts.install) return { note: 'nats-server is not installed (this run does not install it)' };
  if (!which('apt-get')) return { note: 'nats-server is missing and apt-get is not available to install it' };
  const asRoot = process.getuid?.() === 0 ? [] : which('sudo') ? ['sudo', '-n'] : undefined;
  if (!asRoot) return { note: 'nats-server is missing and installing it needs root' };
  const apt = (args: string[]) => {
    const [cmd, ...rest] = [...asRoot, 'apt-get', ...args];
    return spawnSync(cmd!, rest, { encoding: 'utf8', timeout: 180_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  process.stderr.write('bench: installing nats-server from Debian packages...\n');
  let r = apt(['install', '-y', '-q', 'nats-server']);
  if (r.status !== 0) {
    apt(['update', '-q']);
    r = apt(['install', '-y', '-q', 'nats-server']);
  }
  const bin = which('nats-server');
  if (!bin)
    return {
      note: `installing nats-server failed: ${(r.stderr || r.stdout || String(r.error ?? '')).trim().split('\n').slice(-2).join(' ')}`,
    };
  return { bin };
}

/** Starts nats-server with JetStream and a file store under `dir`. */
export async function startNats(bin: string, dir: string): Promise<NatsServer> {
  const port = await freePort();
  const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  const child = launch(bin, ['-js', '-sd', path.join(dir, 'jetstream'), '-a', '127.0.0.1', '-p', String(port)]);
  await waitForLine(child, /Server is ready/, 30_000, 'nats-server');
  return { port, pid: child.pid, version, stop: () => stop(child) };
}

/** Connects and makes sure the BENCH stream (file storage, subjects bench.>) exists. */
export async function natsClient(port: number): Promise<{ nc: NatsConnection; js: JetStreamClient }> {
  const nc = await connect({ servers: `127.0.0.1:${port}`, maxReconnectAttempts: 0 });
  const jsm = await nc.jetstreamManager();
  try {
    await jsm.streams.info('BENCH');
  } catch {
    await jsm.streams.add({ name: 'BENCH', subjects: ['bench.>'], storage: StorageType.File });
  }
  return { nc, js: nc.jetstream() };
}

/** `clients` concurrent publishers each awaiting a JetStream ack per message, for `seconds`. */
export async function natsIngest(js: JetStreamClient, clients: number, seconds: number, body: (i: number) => string) {
  const enc = new TextEncoder();
  const latency = new Samples();
  let ok = 0;
  let errors = 0;
  let firstError: string | undefined;
  let seq = 0;
  const start = nowMs();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (nowMs() < end) {
        const t0 = nowMs();
        try {
          await js.publish('bench.ingest', enc.encode(body(seq++)));
          ok++;
          latency.push(nowMs() - t0);
        } catch (err) {
          errors++;
          firstError ??= String(err);
        }
      }
    }),
  );
  const elapsed = (nowMs() - start) / 1000;
  return { rate: ok / elapsed, ok, errors, ...(firstError ? { firstError } : {}), latency, seconds: elapsed };
}

/** Publishes to bench.fanout at `rate`/s (0: unpaced with `inflight` outstanding) for `seconds`. */
export async function natsPublish(
  js: JetStreamClient,
  opts: { rate: number; seconds: number; inflight: number; until?: () => boolean },
  body: (i: number, t: number) => string,
) {
  const enc = new TextEncoder();
  let sent = 0;
  let ok = 0;
  let errors = 0;
  let firstError: string | undefined;
  let inflight = 0;
  const start = nowMs();
  const end = start + opts.seconds * 1000;
  let wake: (() => void) | undefined;
  while (nowMs() < end && !opts.until?.()) {
    const due = opts.rate > 0 ? Math.floor(((nowMs() - start) / 1000) * opts.rate) + 1 : Infinity;
    while (sent < due && inflight < opts.inflight) {
      const t = nowMs();
      inflight++;
      js.publish('bench.fanout', enc.encode(body(sent++, t))).then(
        () => {
          ok++;
          inflight--;
          wake?.();
        },
        (err: unknown) => {
          errors++;
          firstError ??= String(err);
          inflight--;
          wake?.();
        },
      );
    }
    if (opts.rate > 0 && sent >= due) await new Promise((r) => setTimeout(r, 1));
    else await new Promise<void>((r) => (wake = r));
    wake = undefined;
  }
  const elapsed = (nowMs() - start) / 1000;
  while (inflight > 0) await new Promise<void>((r) => (wake = r));
  return { sent, ok, errors, ...(firstError ? { firstError } : {}), rate: ok / elapsed, seconds: elapsed };
}
