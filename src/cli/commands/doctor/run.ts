// svc doctor: one line per check with a mark; exit 1 when any check fails. Each check only
// reports (verdaccio's doctor): the config and its file, then the running server and its
// network document, then the pairings.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ClientError } from '../../../client/errors.js';
import { SvcClient } from '../../../client/svc-client.js';
import { envValue } from '../../../config/env.js';
import { checkSecretFile, ConfigError, describeStoreUrl, parseConfig, parseYaml, plaintextSecretPaths } from '../../../config/load.js';
import { DEFAULT_STORE_SCHEMA, type LoadedConfig } from '../../../config/types.js';
import {
  ATTACH_PROTOCOL,
  HTTP_PROTOCOL,
  PAIR_PROTOCOL,
  type NetworkDocument,
  type Pairing,
  type PairingStatus,
  type Warning,
} from '../../../protocol/types.js';
import { VERSION } from '../../../version.js';
import { json, mark, type Status } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { configPath, DEFAULT_LISTEN, resolveTarget, startCommandOf, TargetError, urlOfListenAddr, UsageError } from '../../target.js';
import { checkOwnNetwork } from '../../target-check.js';
import type { ClientFlags } from '../../with-client.js';

export interface CheckResult {
  check: string;
  status: Status;
  message: string;
}

const ok = (check: string, message: string): CheckResult => ({ check, status: 'ok', message });
const fail = (check: string, message: string): CheckResult => ({ check, status: 'fail', message });

/** Reads and validates the config; each of parse, file mode and schema is its own line. */
export function configChecks(file: string, env: NodeJS.ProcessEnv): { results: CheckResult[]; loaded?: LoadedConfig } {
  const results: CheckResult[] = [];
  let raw: Record<string, unknown>;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'), file);
  } catch (err) {
    return {
      results: [fail('config valid', err instanceof ConfigError ? err.message : `${file}: cannot read: ${(err as Error).message}`)],
    };
  }
  const secrets = plaintextSecretPaths(raw);
  try {
    checkSecretFile(file, raw);
    results.push(
      ok(
        'secret file mode',
        secrets.length === 0
          ? 'no plaintext secrets in the file'
          : `${secrets.length} plaintext secret(s); the file is private (no group/world access)`,
      ),
    );
  } catch (err) {
    results.push(fail('secret file mode', (err as Error).message));
  }
  let loaded: LoadedConfig;
  try {
    loaded = parseConfig(raw, { baseDir: path.dirname(file), env, file, hookSecrets: 'client' });
  } catch (err) {
    results.unshift(fail('config valid', (err as Error).message));
    return { results };
  }
  const c = loaded.config;
  const n = (k: number, word: string) => `${k} ${word}${k === 1 ? '' : 's'}`;
  results.unshift(
    ok(
      'config valid',
      `${file}: network ${c.network.id}, ${c.auth.mode} mode, ${n(c.auth.tokens.length, 'token')}, ${n(c.rooms.length, 'room')}, ${n(c.pairings.length, 'pairing')}`,
    ),
  );
  for (const w of loaded.warnings) results.push(warningResult('config warning', w));
  return { results, loaded };
}

function warningResult(check: string, w: Warning): CheckResult {
  const status: Status = w.severity === 'error' ? 'fail' : w.severity === 'warning' ? 'warn' : 'info';
  return { check, status, message: `${w.code}: ${w.message}${w.action ? ` (${w.action})` : ''}${w.docs_url ? `; see ${w.docs_url}` : ''}` };
}

/** Protocol and capability compatibility of a network document with this CLI (SPEC Versioning). */
export function compatibilityChecks(doc: NetworkDocument): CheckResult[] {
  const out: CheckResult[] = [];
  const p = doc.protocols;
  const caps = doc.capabilities ?? ({} as Partial<NetworkDocument['capabilities']>);
  const problems: string[] = [];
  const notes: string[] = [];
  if (!p) notes.push('no protocols advertised (an older server)');
  else {
    if (!p.http?.includes(HTTP_PROTOCOL)) problems.push(`protocols.http lacks ${HTTP_PROTOCOL} (has ${p.http?.join(', ') || 'none'})`);
    const attachOk = p.attach?.includes(ATTACH_PROTOCOL) || (!p.attach?.length && caps.attachment_protocol === 'websocket');
    if (!attachOk) problems.push(`protocols.attach lacks ${ATTACH_PROTOCOL}`);
    if (p.pair?.length && !p.pair.includes(PAIR_PROTOCOL))
      problems.push(`protocols.pair lacks ${PAIR_PROTOCOL} (has ${p.pair.join(', ')})`);
    if (!p.pair?.length) notes.push('no pair protocol (treated as a legacy pairing candidate)');
  }
  out.push(
    problems.length
      ? fail(
          'protocols',
          `unsupported-protocol: ${problems.join('; ')}: this CLI speaks ${[HTTP_PROTOCOL, ATTACH_PROTOCOL, PAIR_PROTOCOL].join(', ')}`,
        )
      : {
          check: 'protocols',
          status: notes.length ? 'warn' : 'ok',
          message: notes.join('; ') || [p!.http, p!.attach, p!.pair].flat().join(', '),
        },
  );

  const missing: string[] = [];
  if (caps.event_stream !== 'sse') missing.push('event_stream sse (svc tail, console)');
  if (caps.attachment_protocol !== 'websocket') missing.push('attachment_protocol websocket');
  if (caps.message_pagination !== 'cursor') missing.push('message_pagination cursor');
  const off = (['human_ingress', 'direct_messages', 'pairings'] as const).filter((k) => caps[k] !== true);
  if (missing.length) out.push({ check: 'capabilities', status: 'warn', message: `missing: ${missing.join(', ')}` });
  else out.push(ok('capabilities', `sse, websocket, cursor pagination${off.length ? `; off: ${off.join(', ')}` : ''}`));
  return out;
}

const PAIRING_MARK: Record<PairingStatus, Status> = {
  connected: 'ok',
  degraded: 'warn',
  pending: 'info',
  unknown: 'warn',
  incompatible: 'fail',
  error: 'fail',
};

/** One line per pairing: the server's status when it reports one, else what the config says. */
export function pairingChecks(
  configured: readonly { id: string; remote_network_id?: string }[],
  served: readonly Pairing[] | undefined,
  why?: string,
): CheckResult[] {
  const ids = [...new Set([...configured.map((p) => p.id), ...(served ?? []).map((p) => p.id)])];
  if (ids.length === 0) return [ok('pairings', 'none configured')];
  return ids.flatMap((id): CheckResult[] => {
    const s = served?.find((p) => p.id === id);
    // "invite out" only while the peer never answered: a pairing in any other state has one, even
    // when this server cannot name it.
    const answered = s !== undefined && s.status !== 'unknown' && s.status !== 'pending';
    const remote =
      s?.remote_network_id ||
      configured.find((p) => p.id === id)?.remote_network_id ||
      (answered ? 'the paired network (its id not reported)' : 'a network not yet known (invite out)');
    const check = `pairing ${id}`;
    if (!s)
      return [
        {
          check,
          status: 'info',
          message: `to ${remote}: ${why ?? 'not reported by the server (restart or reload it to pick up the config)'}`,
        },
      ];
    const d = s.diagnostics;
    const detail = d?.message ?? d?.reason;
    const line: CheckResult = {
      check,
      status: PAIRING_MARK[s.status] ?? 'warn',
      message: `to ${remote}: ${s.status}${detail ? ` (${detail})` : ''}`,
    };
    return s.refused ? [line, refusalCheck(s, remote)] : [line];
  });
}

/** One line for a pairing whose peer refused relayed messages: counts by reason, the last ids, the fix there. */
export function refusalCheck(p: Pairing, remote: string): CheckResult {
  const r = p.refused!;
  const reasons = Object.entries(r.by_reason)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const ids = r.recent.map((x) => x.message_id).join(', ');
  return {
    check: `pairing ${p.id} refusals`,
    status: 'warn',
    message: `${remote} refused ${r.total} relayed message${r.total === 1 ? '' : 's'} (${reasons}; last: ${ids}), not retried; fix ${r.recent[0]!.fix}`,
  };
}

/** Every check against the running server; stops at the first one the rest depend on. */
/** The embedded engine's mode: a sqlite store without page tracking still works, but slower. */
export function engineCheck(e: { backend: string; page_tracking: boolean; on_demand_reads: boolean; problem?: string }): CheckResult {
  if (e.page_tracking)
    return ok(
      'store engine',
      `${e.backend}: checkpoints write changed pages${e.on_demand_reads ? ', untouched pages are read on demand' : ''}`,
    );
  return {
    check: 'store engine',
    status: 'warn',
    message: `${e.backend}: checkpoints write the whole database and load it whole (${e.problem ?? 'page tracking off'}): reinstall svc with its locked dependencies (npm ci)`,
  };
}

async function serverChecks(client: SvcClient, loaded: LoadedConfig | undefined): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  try {
    await client.health();
    const ready = await client.ready();
    out.push(ok('server reachable', `${client.baseUrl} answers (${ready.status})`));
    if (ready.store) out.push(engineCheck(ready.store));
  } catch (err) {
    out.push(fail('server reachable', (err as Error).message));
    return out;
  }
  let doc: NetworkDocument;
  try {
    doc = await client.network();
  } catch (err) {
    out.push(fail('network document', (err as Error).message));
    return out;
  }
  if (loaded) {
    const want = loaded.config.network.id;
    out.push(
      doc.id === want
        ? ok('network id', `${doc.id} matches the config`)
        : fail('network id', `the server is network ${doc.id}, the config says ${want}: is --url pointing at another server?`),
    );
  }
  out.push(
    doc.version === VERSION
      ? ok('version', `server and CLI both run ${VERSION}`)
      : {
          check: 'version',
          status: 'warn',
          message: `stale-running-server: the server runs ${doc.version}, this CLI is ${VERSION}: restart the server to pick up the new one (when this CLI is the newer), or use the CLI of its install`,
        },
  );
  out.push(...compatibilityChecks(doc));
  const warnings = doc.warnings ?? [];
  if (warnings.length === 0) out.push(ok('server warnings', 'none'));
  else out.push(...warnings.map((w) => warningResult('server warning', w)));

  const configured = loaded?.config.pairings ?? [];
  try {
    out.push(...pairingChecks(configured, (await client.listPairings({ limit: 500 })).pairings));
  } catch (err) {
    const e = err as ClientError;
    if (e instanceof ClientError && e.status === 404)
      out.push(...pairingChecks(configured, undefined, 'status unknown: this server has no /v1/pairings'));
    else if (configured.length === 0 && e instanceof ClientError && e.status === 403) out.push(ok('pairings', 'none configured'));
    else out.push({ check: 'pairings', status: 'warn', message: `cannot read pairing status: ${e.message}` });
  }
  return out;
}

/** When the sqlite store's last `svc backup` was taken (kept beside svc.db as `svc.db.last-backup`). */
async function lastBackupCheck(db: string): Promise<CheckResult> {
  const { readLastBackup } = await import('../../../store/sqlite/engine/backup.js');
  const last = readLastBackup(path.resolve(db));
  if (!last)
    return {
      check: 'last backup',
      status: 'info',
      message: 'none taken yet: `svc backup DIR` copies the running store (docs/operations.md)',
    };
  return ok('last backup', `${last.taken_at} into ${last.dir} (${last.bytes} bytes)`);
}

export async function doctorCommand(io: Io, flags: ClientFlags): Promise<number> {
  const results: CheckResult[] = [];
  const { file } = configPath(flags, io.env);
  const urlGiven = flags.url !== undefined || envValue(io.env, 'SVC_URL') !== undefined;
  let loaded: LoadedConfig | undefined;
  if (existsSync(file)) {
    const r = configChecks(file, io.env);
    results.push(...r.results);
    loaded = r.loaded;
  } else if (urlGiven) {
    results.push({ check: 'config valid', status: 'skip', message: `no config at ${file}; checking the server only` });
  } else {
    results.push(fail('config valid', `no config at ${file}: run svc init, or pass --config (or --url to check a server only)`));
  }

  const store = loaded?.config.store;
  if (store?.backend === 'postgres' && store.url) {
    const { databaseChecks } = await import('../../../store/postgres/doctor.js');
    results.push(...(await databaseChecks(store.url, store.schema ?? DEFAULT_STORE_SCHEMA, describeStoreUrl(store.url))));
  }
  if (store?.backend === 'sqlite') results.push(await lastBackupCheck(store.path));

  let client: SvcClient | undefined;
  try {
    // With no config file, still look for a server at the default address.
    const where = urlGiven || existsSync(file) ? flags : { ...flags, url: urlOfListenAddr(DEFAULT_LISTEN) };
    const target = resolveTarget(where, io.env);
    // Another network on this address gets no operator token (a failure to connect is the next check's).
    await checkOwnNetwork(target).catch((e: unknown) => {
      if (e instanceof TargetError) throw e;
    });
    client = new SvcClient({
      url: target.url,
      startCommand: startCommandOf(target),
      ...(target.token !== undefined ? { token: target.token } : {}),
    });
    results.push(...(await serverChecks(client, loaded)));
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`svc doctor: ${err.message}`);
      return EXIT.usage;
    }
    if (!(err instanceof TargetError)) throw err;
    results.push(fail('server reachable', `cannot tell where the server is: ${err.message}`));
  } finally {
    await client?.close().catch(() => undefined);
  }

  const failed = results.filter((r) => r.status === 'fail').length;
  if (flags.json) {
    io.out(json({ ok: failed === 0, checks: results }));
  } else {
    const c = io.color;
    const width = Math.max(...results.map((r) => r.check.length));
    for (const r of results) io.out(`${mark(c, r.status)} ${r.check.padEnd(width)}  ${r.message}`);
    const warned = results.filter((r) => r.status === 'warn').length;
    const tail = warned ? `, ${warned} warning${warned === 1 ? '' : 's'}` : '';
    io.out(failed === 0 ? c.green(`all checks passed${tail}`) : c.red(`${failed} check${failed === 1 ? '' : 's'} failed${tail}`));
  }
  return failed === 0 ? EXIT.ok : EXIT.failure;
}
