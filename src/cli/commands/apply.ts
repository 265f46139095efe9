// svc apply FILE: posts the rooms and token-agent bindings a config file declares to
// POST /v1/apply and prints what was created, updated or left alone. Token values never leave the
// machine: a binding names its credential as `token:<auth.tokens[].id>`.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { collectAll, type SvcClient } from '../../client/index.js';
import { ConfigError, parseConfig, parseYaml } from '../../config/load.js';
import { declaredFromConfig } from '../../network/apply.js';
import { normalizeMember } from '../../network/members.js';
import type { AgentSummary, ApplyRequest, ApplyResponse, Room } from '../../protocol/types.js';
import { json, table } from '../format.js';
import { EXIT, type Io } from '../io.js';
import { reportFailure, withClient, type ClientFlags } from '../with-client.js';

export interface ApplyFlags extends ClientFlags {
  dryRun?: boolean;
}

export type Change = NonNullable<ApplyResponse['changes']>[number] & { details?: string[] };

/** The apply request a config file declares. Throws ConfigError naming the key path. */
export function declaredRequest(file: string, env: NodeJS.ProcessEnv): ApplyRequest {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new ConfigError(`${file}: ${e.code === 'ENOENT' ? 'no such file' : `cannot read: ${e.message}`}`, file);
  }
  const raw = parseYaml(text, file);
  const loaded = parseConfig(raw, { baseDir: path.dirname(file), env: placeholderEnv(raw, env, file), file });
  const declared = declaredFromConfig(loaded.config);
  return {
    network_id: loaded.config.network.id,
    agents: declared.agents,
    // HTTP apply carries no federation: that stays with the server's own config.
    rooms: declared.rooms.map(({ federation_pairings: _f, ...room }) => room),
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
    if (typeof name !== 'string' || env[name]) return;
    if (typeof t.id !== 'string') {
      throw new ConfigError(`${file}: auth.tokens[${i}]: set an id, or export ${name}: apply names the token by its id`, file);
    }
    filled[name] = `unset-${name}-${i}`; // unique per entry so the duplicate-value check stays quiet
  });
  return filled;
}

/** What applying `req` would change on a server holding `rooms` and `agents` (mirrors the server's rules). */
export function planApply(req: ApplyRequest, rooms: readonly Room[], agents: readonly AgentSummary[]): Change[] {
  const changes: Change[] = [];
  const agentIds = new Set(agents.map((a) => a.id));
  for (const b of req.agents) changes.push({ kind: 'agent', id: b.id, action: agentIds.has(b.id) ? 'unchanged' : 'created' });
  const byId = new Map(rooms.map((r) => [r.id, r]));
  for (const d of req.rooms) {
    const cur = byId.get(d.id);
    if (!cur) {
      changes.push({ kind: 'room', id: d.id, action: 'created' });
      continue;
    }
    const details: string[] = [];
    if (d.name !== undefined && d.name !== cur.name) details.push(`name ${cur.name} -> ${d.name}`);
    if (d.members !== undefined) {
      const next = d.members.map((m) => normalizeMember(req.network_id, m) ?? m).filter((m, i, all) => all.indexOf(m) === i);
      const added = next.filter((m) => !cur.members.includes(m));
      const removed = cur.members.filter((m) => !next.includes(m));
      if (added.length || removed.length) details.push(`members ${[...added.map((m) => `+${m}`), ...removed.map((m) => `-${m}`)].join(' ')}`);
      else if (next.join('\n') !== cur.members.join('\n')) details.push('members reordered');
    }
    if (d.visibility !== undefined && d.visibility !== cur.visibility) details.push(`visibility ${cur.visibility} -> ${d.visibility}`);
    if (d.write_policy !== undefined && d.write_policy !== cur.write_policy) details.push(`write_policy ${cur.write_policy} -> ${d.write_policy}`);
    changes.push({ kind: 'room', id: d.id, action: details.length ? 'updated' : 'unchanged', ...(details.length ? { details } : {}) });
  }
  return changes;
}

export async function applyCommand(io: Io, file: string, flags: ApplyFlags): Promise<number> {
  const abs = path.resolve(file);
  let req: ApplyRequest;
  try {
    req = declaredRequest(abs, io.env);
  } catch (err) {
    return reportFailure(io, 'apply', err, flags.debug);
  }
  // Without --config/SVC_CONFIG, the file being applied also says where its server listens.
  const target = { ...flags, config: flags.config ?? (io.env.SVC_CONFIG ? undefined : abs) };
  return withClient(io, 'apply', target, async (client) => {
    if (flags.dryRun) return dryRun(io, client, req, flags);
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

async function dryRun(io: Io, client: SvcClient, req: ApplyRequest, flags: ApplyFlags): Promise<number> {
  const network = await client.network();
  if (network.id !== req.network_id) {
    io.err(`svc apply: ${req.network_id} (the file's network.id) is not the network at ${client.baseUrl} (${network.id}); applying would fail`);
    return EXIT.failure;
  }
  const [rooms, agents] = await Promise.all([
    collectAll((q) => client.listRooms(q).then((r) => ({ items: r.rooms, page: r.page }))),
    collectAll((q) => client.listAgents(q).then((r) => ({ items: r.agents, ...(r.page ? { page: r.page } : {}) }))),
  ]);
  const changes = planApply(req, rooms, agents);
  if (flags.json) {
    io.out(json({ dry_run: true, network_id: req.network_id, changes }));
    return EXIT.ok;
  }
  io.out(`plan for network ${req.network_id} at ${client.baseUrl} (dry run: nothing is applied)`);
  report(io, changes, true);
  return EXIT.ok;
}

const PLAN_WORD = { created: 'create', updated: 'update', unchanged: 'keep' } as const;

function report(io: Io, changes: readonly Change[], plan: boolean): void {
  const c = io.color;
  if (changes.length === 0) {
    io.out('nothing declared: the file has no rooms and no tokens with agents');
    return;
  }
  const paint = (a: Change['action'], s: string) => (a === 'created' ? c.green(s) : a === 'updated' ? c.yellow(s) : c.dim(s));
  const lines = table(c, changes, [
    { header: plan ? 'PLAN' : 'RESULT', value: (ch) => (plan ? PLAN_WORD[ch.action] : ch.action), style: (s, ch) => paint(ch.action, s) },
    { header: 'KIND', value: (ch) => ch.kind },
    { header: 'ID', value: (ch) => ch.id },
    ...(plan ? [{ header: 'DETAILS', value: (ch: Change) => (ch.details ?? []).join('; ') }] : []),
  ]);
  lines.forEach((l) => io.out(l));
  const n = (a: Change['action']) => changes.filter((ch) => ch.action === a).length;
  const created = n('created');
  const updated = n('updated');
  const unchanged = n('unchanged');
  if (created + updated === 0) io.out(plan ? `nothing to change (${unchanged} unchanged)` : `nothing changed (${unchanged} unchanged)`);
  else if (plan) io.out(`${created} to create, ${updated} to update, ${unchanged} unchanged`);
  else io.out(`${created} created, ${updated} updated, ${unchanged} unchanged`);
}
