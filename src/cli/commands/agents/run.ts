// svc agents list / get / register / delete: the agent endpoints for operators.

import { collectAll } from '../../../client/pages.js';
import type { AgentRegistration, AgentSummary } from '../../../protocol/types.js';
import { json, keyValues, list, table } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { anonymousHint, withClient, type ClientFlags, type ListFlags } from '../../with-client.js';
import { AGENT_TOKEN_PREFIX } from '../../../auth/credentials.js';
import { credentialDirs, findToken, keepToken, keptAgents, legacyTokenFiles } from '../../../config/agent-credentials.js';
import { keepFix, networkIdentityOf, scopeOf } from '../../agent-token.js';
import { TargetError } from '../../target.js';

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
 * Registers (or resolves, when the same credential repeats) an agent; a new token is shown once
 * and kept (src/config/agent-credentials.ts). The config's operator token is not sent: an agent
 * registered to it could not attach (it has no attach scope), while an anonymous open-registration
 * claim gets the agent its own token. A token kept for --id is sent (the registration resolves to
 * the same record); an explicit --token or SVC_TOKEN is sent too, and an agent token given so is
 * kept once the server confirms its agent (how a token comes to another machine).
 */
export function agentsRegister(io: Io, flags: RegisterFlags): Promise<number> {
  return withClient(
    io,
    'agents register',
    flags,
    async (client, target, pick) => {
      const reg: AgentRegistration = await client.registerAgent({
        ...(flags.id !== undefined ? { requested_agent_id: flags.id } : {}),
        ...(flags.name !== undefined ? { name: flags.name } : {}),
      });
      const givenAgentToken = target.tokenSource !== 'kept' && target.token?.startsWith(AGENT_TOKEN_PREFIX) ? target.token : undefined;
      const toKeep = reg.agent_token ?? givenAgentToken;
      let keptIn = pick?.kept?.file;
      if (toKeep !== undefined) {
        const scope = pick?.scope ?? scopeOf(target, await client.network(), io.env);
        keptIn = keepToken(scope, reg.agent_id, toKeep);
      }
      if (flags.json) {
        io.out(json(reg));
        if (keptIn) io.err(`svc agents register: the token of ${reg.agent_id} is kept in ${keptIn}`);
        return EXIT.ok;
      }
      const c = io.color;
      // The same credential repeating gets the existing record back: both read as "registered to you".
      io.out(`${c.green('registered')} agent ${reg.agent_id} (${reg.actor_uri})`);
      for (const l of keyValues(c, [
        ['display name', reg.display_name],
        ['actor uid', reg.actor_uid],
        ['created', reg.created_at],
      ]))
        io.out(l);
      if (reg.agent_token) {
        io.out(`${c.bold('agent token')} (shown once; kept in ${keptIn}): ${reg.agent_token}`);
      } else if (keptIn) {
        io.out(`its token is kept in ${keptIn} (svc agents token ${reg.agent_id} prints it)`);
      }
      if (keptIn)
        io.out(
          `commands from here act as ${reg.agent_id} with it: svc send --as ${reg.agent_id} ..., svc agent run --agent ${reg.agent_id} ..., svc connect claude --agent ${reg.agent_id}`,
        );
      return EXIT.ok;
    },
    { operatorToken: false, agent: { agent: flags.id, flag: '--id' } },
  );
}

/** Prints the token kept for an agent (to use it on another machine); refuses with the fix when none is kept. */
export function agentsToken(io: Io, id: string, flags: ClientFlags): Promise<number> {
  return withClient(
    io,
    'agents token',
    flags,
    async (_client, target) => {
      const network = await networkIdentityOf(target);
      if (network === undefined)
        throw new TargetError(`nothing answers at ${target.url} and no config names the network: start the server, or pass --config`);
      const networkId = network.id;
      const scope = scopeOf(target, network, io.env);
      const found = findToken(scope, id, legacyTokenFiles(networkId, id, { ...(io.env.HOME ? { home: io.env.HOME } : {}) }));
      if (!found) {
        const others = keptAgents(scope);
        io.err(
          `svc agents token: no token of ${id} is kept for network ${networkId} at ${target.url} (looked in ${credentialDirs(scope).join(', ')}): ${keepFix(id)}${others.length ? `; kept here: ${others.join(', ')}` : ''}`,
        );
        return EXIT.failure;
      }
      if (flags.json) io.out(json({ agent_id: id, network_id: networkId, url: target.url, token: found.token, file: found.file }));
      else io.out(found.token);
      if (!flags.json)
        io.err(
          `svc agents token: from ${found.file}; on another machine: SVC_TOKEN=<token> svc agents register --id ${id} --url ${target.url} keeps it there`,
        );
      return EXIT.ok;
    },
    { operatorToken: false },
  );
}

export function agentsDelete(io: Io, id: string, flags: ClientFlags): Promise<number> {
  return withClient(io, 'agents delete', flags, async (client) => {
    const r = await client.deleteAgent(id);
    if (flags.json) io.out(json(r));
    else io.out(`${io.color.red('removed')} agent ${r.id} (soft: history kept; its generated token no longer works)`);
    return EXIT.ok;
  });
}
