// svc apply FILE: posts the rooms, token-agent bindings and the sections features keep (their
// ApplySection, src/feature-commands.ts) FILE declares to POST /v1/apply and prints what was
// created, updated or left alone. FILE is a whole config or only declarations (`rooms:`,
// `auth.tokens` with `agents`, the features' keys); the server and the operator token come from
// --config, else ./svc.yaml, else FILE itself (CI). Token values never leave the machine: a binding
// names its credential as `token:<auth.tokens[].id>`. Secrets of the features' sections may: the
// server needs them (to sign, to check, to call).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ClientError } from '../../../client/errors.js';
import { collectAll } from '../../../client/pages.js';
import type { SvcClient } from '../../../client/svc-client.js';
import { envValue } from '../../../config/env.js';
import { ConfigError, parseConfig, parseYaml } from '../../../config/load.js';
import { declaredFromConfig } from '../../../network/apply.js';
import { overriddenText, undoneByReload } from '../../../network/declared-rooms.js';
import { normalizeMember } from '../../../network/members.js';
import type { ApplySection, ApplySectionWork, PlannedChange } from '../../../feature-cli.js';
import type { AgentSummary, ApplyRequest, ApplyResponse, Room } from '../../../protocol/types.js';
import { json, table } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { configPath, resolveTarget, type Target } from '../../target.js';
import { reportFailure, withClient, type ClientFlags } from '../../with-client.js';

export interface ApplyFlags extends ClientFlags {
  dryRun?: boolean;
}

export type Change = NonNullable<ApplyResponse['changes']>[number] & { details?: string[] };
export type { PlannedChange };

/** A feature's sections of the file, their work loaded. */
export type Section = Pick<ApplySection, 'keys'> & ApplySectionWork;

/**
 * The apply request FILE declares, with the features' `sections`. A file with `network:` is a whole
 * config; one without is only declarations for `networkId` (the target's network). Throws
 * ConfigError naming the key path.
 */
export function declaredRequest(
  file: string,
  env: NodeJS.ProcessEnv,
  networkId: string | undefined,
  sections: readonly Section[],
): ApplyRequest {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new ConfigError(`${file}: ${e.code === 'ENOENT' ? 'no such file' : `cannot read: ${e.message}`}`, file);
  }
  const raw = parseYaml(text, file);
  const featureKeys = sections.flatMap((s) => s.keys);
  const source = isWholeConfig(raw) ? raw : declarationsAsConfig(raw, file, networkId, featureKeys);
  const loaded = parseConfig(source, { baseDir: path.dirname(file), env: placeholderEnv(source, env, file), file, hookSecrets: 'apply' });
  const declared = declaredFromConfig(loaded.config);
  const req: ApplyRequest = {
    network_id: loaded.config.network.id,
    agents: declared.agents,
    // HTTP apply carries no federation: that stays with the server's own config.
    rooms: declared.rooms.map(({ federation_pairings: _f, ...room }) => room),
  };
  for (const s of sections) Object.assign(req, s.request(loaded.config));
  return req;
}

/** Whether a parsed file is a whole config (it has `network:`) rather than declarations only. */
export function isWholeConfig(raw: Record<string, unknown>): boolean {
  return raw.network !== undefined;
}

/**
 * A declarations-only file as a config the schema checks: its rooms, and its tokens (id and agents
 * matter; values never leave the machine, so a token without one gets a placeholder).
 */
function declarationsAsConfig(
  raw: Record<string, unknown>,
  file: string,
  networkId: string | undefined,
  featureKeys: readonly string[],
): Record<string, unknown> {
  const allowed = new Set(['rooms', 'auth', ...featureKeys]);
  const extra = Object.keys(raw).filter((k) => !allowed.has(k));
  if (extra.length > 0) {
    const keys = ['rooms:', 'auth.tokens with agents', ...featureKeys.map((k) => `${k}:`)].join(', ');
    throw new ConfigError(
      `${file}: ${extra[0]}: is a config section, but the file has no network: so it is read as declarations only (${keys}); add network: to apply a whole config`,
      file,
    );
  }
  if (networkId === undefined) {
    throw new ConfigError(
      `${file}: declarations only (no network:), and no config says which network they are for: run it in the config folder, pass --config FILE, or add network: {id: ...}`,
      file,
    );
  }
  const auth = raw.auth as { tokens?: unknown } | null | undefined;
  if (
    auth !== undefined &&
    (auth === null || typeof auth !== 'object' || Array.isArray(auth) || Object.keys(auth).some((k) => k !== 'tokens'))
  ) {
    throw new ConfigError(
      `${file}: auth: a declarations file has only auth.tokens (ids with agents); the rest of auth stays in the server's config`,
      file,
    );
  }
  const tokens = Array.isArray(auth?.tokens) ? (auth.tokens as unknown[]) : auth?.tokens === undefined ? [] : auth.tokens;
  const filled = Array.isArray(tokens)
    ? tokens.map((t, i) =>
        t &&
        typeof t === 'object' &&
        !Array.isArray(t) &&
        (t as Record<string, unknown>).value === undefined &&
        (t as Record<string, unknown>).value_env === undefined
          ? { scopes: ['observe'], ...(t as Record<string, unknown>), value: `declared-placeholder-token-${i}-0123456789` }
          : t,
      )
    : tokens;
  return {
    network: { id: networkId },
    auth: { mode: 'open', tokens: filled },
    rooms: raw.rooms ?? [],
    ...Object.fromEntries(featureKeys.flatMap((k) => (raw[k] !== undefined ? [[k, raw[k]]] : []))),
  };
}

/**
 * Apply needs token ids, not values: a `value_env` that is not set here gets a placeholder, unless
 * the token has no `id` (its id is derived from the value, which only the real value gives).
 */
function placeholderEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, file: string): NodeJS.ProcessEnv {
  const auth = raw.auth as { tokens?: unknown } | undefined;
  const tokens = Array.isArray(auth?.tokens) ? (auth.tokens as Record<string, unknown>[]) : [];
  const filled: NodeJS.ProcessEnv = { ...env };
  tokens.forEach((t, i) => {
    const name = t && typeof t === 'object' ? t.value_env : undefined;
    if (typeof name !== 'string' || envValue(env, name) !== undefined) return;
    if (typeof t.id !== 'string') {
      throw new ConfigError(`${file}: auth.tokens[${i}]: set an id, or export ${name}: apply names the token by its id`, file);
    }
    filled[name] = `unset-${name}-${i}`; // unique per entry so the duplicate-value check stays quiet
  });
  // Hook secrets are not filled in: apply carries them, so a missing one is an error naming its key.
  return filled;
}

/** Ids the view could not see, with why (e.g. "exists, private"): planned as `unknown`, never as created. */
export interface Unseen {
  rooms?: ReadonlyMap<string, string>;
  agents?: ReadonlyMap<string, string>;
}

/** What applying `req` would change on a server holding `rooms` and `agents` (mirrors the server's rules). */
export function planApply(
  req: ApplyRequest,
  rooms: readonly Room[],
  agents: readonly AgentSummary[],
  unseen: Unseen = {},
): PlannedChange[] {
  const changes: PlannedChange[] = [];
  const agentIds = new Set(agents.map((a) => a.id));
  for (const b of req.agents) {
    const why = unseen.agents?.get(b.id);
    if (!agentIds.has(b.id) && why !== undefined) changes.push({ kind: 'agent', id: b.id, action: 'unknown', details: [why] });
    else changes.push({ kind: 'agent', id: b.id, action: agentIds.has(b.id) ? 'unchanged' : 'created' });
  }
  const byId = new Map(rooms.map((r) => [r.id, r]));
  for (const d of req.rooms) {
    const cur = byId.get(d.id);
    const why = unseen.rooms?.get(d.id);
    if (!cur && why !== undefined) {
      changes.push({ kind: 'room', id: d.id, action: 'unknown', details: [why] });
      continue;
    }
    if (!cur) {
      changes.push({ kind: 'room', id: d.id, action: 'created' });
      continue;
    }
    const declared = cur.declared_by_config;
    const undone = declared ? undoneByReload(req.network_id, declared, d) : [];
    if (undone.length > 0) {
      changes.push({ kind: 'room', id: d.id, action: 'refused', details: undone.map((o) => `${o.field}: ${overriddenText(d.id, o)}`) });
      continue;
    }
    const details: string[] = [];
    if (d.name !== undefined && d.name !== cur.name) details.push(`name ${cur.name} -> ${d.name}`);
    if (d.members !== undefined) {
      const next = d.members.map((m) => normalizeMember(req.network_id, m) ?? m).filter((m, i, all) => all.indexOf(m) === i);
      const added = next.filter((m) => !cur.members.includes(m));
      // A join_on_register room's members are added to, never taken from (network/apply.ts).
      const removed = d.join_on_register ? [] : cur.members.filter((m) => !next.includes(m));
      if (added.length || removed.length)
        details.push(`members ${[...added.map((m) => `+${m}`), ...removed.map((m) => `-${m}`)].join(' ')}`);
      else if (!d.join_on_register && next.join('\n') !== cur.members.join('\n')) details.push('members reordered');
    }
    if (d.visibility !== undefined && d.visibility !== cur.visibility) details.push(`visibility ${cur.visibility} -> ${d.visibility}`);
    if (d.write_policy !== undefined && d.write_policy !== cur.write_policy)
      details.push(`write_policy ${cur.write_policy} -> ${d.write_policy}`);
    const action = details.length ? 'updated' : 'unchanged';
    if (declared) details.push("declared in the server's svc.yaml, which wins on reload: this apply agrees with it");
    changes.push({ kind: 'room', id: d.id, action, ...(details.length ? { details } : {}) });
  }
  return changes;
}

/**
 * The config that names the target server and its operator token: --config/SVC_CONFIG, else
 * ./svc.yaml when there is one, else FILE itself when it is a whole config (CI), else none.
 */
export function applyTargetConfig(file: string, flags: ClientFlags, env: NodeJS.ProcessEnv): string | undefined {
  const given = configPath(flags, env);
  if (given.explicit) return given.file;
  if (existsSync(given.file)) return given.file;
  return fileIsWholeConfig(file) ? file : undefined;
}

function fileIsWholeConfig(file: string): boolean {
  try {
    return isWholeConfig(parseYaml(readFileSync(file, 'utf8'), file));
  } catch {
    return true; // unreadable: declaredRequest reports why
  }
}

/** `svc apply FILE`, carrying the sections features keep (`featureApplySections` of src/feature-commands.ts). */
export async function applyCommand(io: Io, file: string, flags: ApplyFlags, features: readonly ApplySection[]): Promise<number> {
  const abs = path.resolve(file);
  const config = applyTargetConfig(abs, flags, io.env);
  const sections = await Promise.all(features.map(async (f): Promise<Section> => ({ keys: f.keys, ...(await f.work()) })));
  let req: ApplyRequest;
  try {
    // A declarations-only file is for the network of the target's config (or its running server).
    const networkId = config !== undefined ? networkIdOf(config, flags, io.env) : undefined;
    req = declaredRequest(abs, io.env, networkId, sections);
  } catch (err) {
    return reportFailure(io, 'apply', err, flags.debug);
  }
  const target = { ...flags, ...(config !== undefined ? { config } : {}) };
  return withClient(io, 'apply', target, async (client, t) => {
    if (flags.dryRun) return dryRun(io, client, req, flags, t, sections);
    const res = await client.apply(req);
    const changes: Change[] = res.changes ?? [
      ...res.agents.map((a) => ({ kind: 'agent' as const, id: a.agent_id, action: 'updated' as const })),
      ...res.rooms.map((r) => ({ kind: 'room' as const, id: r.id, action: 'updated' as const })),
    ];
    if (flags.json) {
      io.out(json(res));
      return res.applied ? EXIT.ok : EXIT.failure;
    }
    io.out(`applied ${path.basename(abs)} to network ${req.network_id} at ${client.baseUrl}`);
    report(io, changes, false);
    if (!res.applied) {
      io.err('svc apply: the server answered applied: false');
      return EXIT.failure;
    }
    return EXIT.ok;
  });
}

function networkIdOf(config: string, flags: ClientFlags, env: NodeJS.ProcessEnv): string | undefined {
  try {
    return resolveTarget({ ...flags, config }, env).networkId;
  } catch {
    return undefined;
  }
}

async function dryRun(
  io: Io,
  client: SvcClient,
  req: ApplyRequest,
  flags: ApplyFlags,
  target: Target,
  sections: readonly Section[],
): Promise<number> {
  // Said first: everything below is only what an anonymous caller may see.
  const anonymous = target.token === undefined;
  if (anonymous && !flags.json) {
    io.out(
      'dry run as an anonymous caller (no token was sent): private rooms and agents are hidden, so what it cannot see is "cannot tell", never "create"; run it in the config folder, or pass --config or --token, to see everything',
    );
  }
  const network = await client.network();
  if (network.id !== req.network_id) {
    io.err(
      `svc apply: ${req.network_id} (the file's network.id) is not the network at ${client.baseUrl} (${network.id}); applying would fail`,
    );
    return EXIT.failure;
  }
  const [rooms, agents] = await Promise.all([
    collectAll((q) => client.listRooms(q).then((r) => ({ items: r.rooms, page: r.page }))),
    collectAll((q) => client.listAgents(q).then((r) => ({ items: r.agents, ...(r.page ? { page: r.page } : {}) }))),
  ]);
  const unseen = anonymous ? await probeUnseen(client, req, rooms, agents) : {};
  const planned: PlannedChange[] = [];
  for (const s of sections) planned.push(...(await s.plan(client, req, agents)));
  const changes = [...planApply(req, rooms, agents, unseen), ...planned];
  // A plan the server would refuse is a failure, as the apply itself would be.
  const code = changes.some((ch) => ch.action === 'refused') ? EXIT.failure : EXIT.ok;
  if (flags.json) {
    io.out(json({ dry_run: true, anonymous, network_id: req.network_id, changes }));
    return code;
  }
  io.out(`plan for network ${req.network_id} at ${client.baseUrl} (dry run: nothing is applied)`);
  report(io, changes, true);
  return code;
}

/**
 * What an anonymous listing did not show, asked one by one: a room that answers 401 exists and is
 * private; one that answers 404 does not exist (the server answers 404 only for a missing room).
 * An agent answers 404 both when missing and when hidden, so it stays "cannot tell".
 */
async function probeUnseen(client: SvcClient, req: ApplyRequest, rooms: readonly Room[], agents: readonly AgentSummary[]): Promise<Unseen> {
  const seenRooms = new Set(rooms.map((r) => r.id));
  const seenAgents = new Set(agents.map((a) => a.id));
  const unseenRooms = new Map<string, string>();
  for (const d of req.rooms) {
    if (seenRooms.has(d.id)) continue;
    try {
      await client.getRoom(d.id);
      unseenRooms.set(d.id, 'exists, but the anonymous listing did not show it');
    } catch (err) {
      if (!(err instanceof ClientError)) throw err;
      if (err.status === 404) continue;
      unseenRooms.set(
        d.id,
        err.status === 401
          ? 'exists and is private: an anonymous caller cannot see what would change'
          : `the server answered ${err.status} ${err.code}`,
      );
    }
  }
  const unseenAgents = new Map<string, string>();
  for (const b of req.agents)
    if (!seenAgents.has(b.id)) unseenAgents.set(b.id, 'not in the anonymous view: it may exist outside public rooms');
  return { rooms: unseenRooms, agents: unseenAgents };
}

const PLAN_WORD = { created: 'create', updated: 'update', unchanged: 'keep', unknown: 'cannot tell', refused: 'refuse (409)' } as const;

function report(io: Io, changes: readonly PlannedChange[], plan: boolean): void {
  const c = io.color;
  if (changes.length === 0) {
    io.out('nothing declared: the file has no rooms, no tokens with agents and no hooks');
    return;
  }
  const paint = (a: PlannedChange['action'], s: string) =>
    a === 'created' ? c.green(s) : a === 'updated' ? c.yellow(s) : a === 'refused' ? c.red(s) : c.dim(s);
  const lines = table(c, changes, [
    { header: plan ? 'PLAN' : 'RESULT', value: (ch) => (plan ? PLAN_WORD[ch.action] : ch.action), style: (s, ch) => paint(ch.action, s) },
    { header: 'KIND', value: (ch) => ch.kind },
    { header: 'ID', value: (ch) => ch.id },
    ...(plan ? [{ header: 'DETAILS', value: (ch: PlannedChange) => (ch.details ?? []).join('; ') }] : []),
  ]);
  lines.forEach((l) => io.out(l));
  const n = (a: PlannedChange['action']) => changes.filter((ch) => ch.action === a).length;
  const created = n('created');
  const updated = n('updated');
  const unchanged = n('unchanged');
  const unknown = n('unknown');
  const cannot = unknown > 0 ? `, ${unknown} cannot tell` : '';
  const refused = n('refused');
  if (plan && refused > 0) {
    io.out(
      `${refused} refused: svc.yaml declares ${refused === 1 ? 'that room' : 'those rooms'} otherwise and wins on every reload, so the apply would fail (409) and change nothing; change svc.yaml, or leave those fields out`,
    );
    return;
  }
  if (created + updated === 0)
    io.out(plan ? `nothing to change (${unchanged} unchanged${cannot})` : `nothing changed (${unchanged} unchanged)`);
  else if (plan) io.out(`${created} to create, ${updated} to update, ${unchanged} unchanged${cannot}`);
  else io.out(`${created} created, ${updated} updated, ${unchanged} unchanged`);
}
