// svc agents list / get / register / delete: the agent endpoints for operators.

import { collectAll } from '../../client/index.js';
import type { AgentRegistration, AgentSummary } from '../../protocol/types.js';
import { json, keyValues, list, table } from '../format.js';
import { EXIT, type Io } from '../io.js';
import { anonymousHint, withClient, type ClientFlags } from '../with-client.js';
import type { ListFlags } from './rooms.js';

/** Prints every agent (or the newest --limit) as a table, or `{agents}` with --json. */
export function agentsList(io: Io, flags: ListFlags): Promise<number> {
  return withClient(io, 'agents list', flags, async (client, target) => {
    const agents =
      flags.limit !== undefined
        ? (await client.listAgents({ limit: flags.limit })).agents
        : await collectAll((q) => client.listAgents(q).then((r) => ({ items: r.agents, ...(r.page ? { page: r.page } : {}) })));
    if (flags.json) {
      io.out(json({ agents }));
      return EXIT.ok;
    }
    const hint = anonymousHint(target, 'only agents that are members of public rooms');
    if (agents.length === 0) {
      io.out(hint ? 'no agents visible to an anonymous caller' : 'no agents (agents register themselves, or: svc agents register --id ID)');
      if (hint) io.err(hint);
      return EXIT.ok;
    }
    if (hint) io.err(hint);
    const c = io.color;
    for (const line of table(c, agents, [
      { header: 'ID', value: (a) => a.id, style: (s) => c.cyan(s) },
      { header: 'NAME', value: (a) => a.name ?? '-' },
      { header: 'ROOMS', value: (a) => list(a.rooms) },
      { header: 'FQID', value: (a) => a.fqid, style: (s) => c.dim(s) },
    ])) {
      io.out(line);
    }
    return EXIT.ok;
  });
}

function agentLines(io: Io, a: AgentSummary): string[] {
  return keyValues(io.color, [
    ['id', io.color.cyan(a.id)],
    ['name', a.name],
    ['fqid', a.fqid],
    ['actor uid', a.actor_uid],
    ['rooms', list(a.rooms)],
  ]);
}

export function agentsGet(io: Io, id: string, flags: ClientFlags): Promise<number> {
  return withClient(io, 'agents get', flags, async (client) => {
    const agent = await client.getAgent(id);
    if (flags.json) io.out(json(agent));
    else agentLines(io, agent).forEach((l) => io.out(l));
    return EXIT.ok;
  });
}

export interface RegisterFlags extends ClientFlags {
  id?: string;
  name?: string;
}

/**
 * Registers (or resolves, when the same credential repeats) an agent; a new token is shown once.
 * The config's operator token is not sent: an agent registered to it could not attach (it has no
 * attach scope), while an anonymous open-registration claim gets the agent its own token.
 * An explicit --token or SVC_TOKEN is still sent.
 */
export function agentsRegister(io: Io, flags: RegisterFlags): Promise<number> {
  return withClient(io, 'agents register', flags, async (client) => {
    const reg: AgentRegistration = await client.registerAgent({
      ...(flags.id !== undefined ? { requested_agent_id: flags.id } : {}),
      ...(flags.name !== undefined ? { name: flags.name } : {}),
    });
    if (flags.json) {
      io.out(json(reg));
      return EXIT.ok;
    }
    const c = io.color;
    // The same credential repeating gets the existing record back: both read as "registered to you".
    io.out(`${c.green('registered')} agent ${reg.agent_id} (${reg.actor_uri})`);
    for (const l of keyValues(c, [['display name', reg.display_name], ['actor uid', reg.actor_uid], ['created', reg.created_at]])) io.out(l);
    if (reg.agent_token) {
      io.out(`${c.bold('agent token')} (shown once; store it before starting the agent): ${reg.agent_token}`);
    }
    return EXIT.ok;
  }, { operatorToken: false });
}

export function agentsDelete(io: Io, id: string, flags: ClientFlags): Promise<number> {
  return withClient(io, 'agents delete', flags, async (client) => {
    const r = await client.deleteAgent(id);
    if (flags.json) io.out(json(r));
    else io.out(`${io.color.red('removed')} agent ${r.id} (soft: history kept; its generated token no longer works)`);
    return EXIT.ok;
  });
}
