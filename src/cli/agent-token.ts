// Which token a command that acts as an agent sends: a token given (--token, SVC_TOKEN) as is, and
// with an agent token its agent is the one acted as (a different --as is refused); otherwise the
// agent's kept token (src/config/agent-credentials.ts) in place of the config's operator token. The
// operator token of `svc init` has no attach scope: where an agent credential is needed and none is
// kept, the command says so and names the fix instead of failing with a scope error.

import { AGENT_TOKEN_PREFIX } from '../auth/credentials.js';
import { agentOfToken } from '../client/attach-whoami.js';
import { ClientError } from '../client/errors.js';
import { SvcClient } from '../client/svc-client.js';
import {
  findToken,
  keptAgents,
  legacyTokenFiles,
  readKeptToken,
  uidsKeptBeside,
  type CredentialScope,
  type KeptToken,
} from '../config/agent-credentials.js';
import { closestId } from '../protocol/closest-id.js';
import { keyUrlOfListenAddr, startCommandOf, TargetError, UsageError, type Target } from './target.js';

/** What a command needs of its credential. */
export interface AgentNeed {
  /** The agent named on the command line (--as, --agent), if any. */
  agent?: string | undefined;
  /** The flag that names it, for messages. */
  flag: '--as' | '--agent' | '--id';
  /** With an agent token and no agent named: find the token's agent (send, agent run, mcp). */
  infer?: boolean;
  /** The command cannot work without an agent credential (attach: agent run, mcp). */
  attach?: boolean;
  /** The command checks registration itself (connect, which registers on --register). */
  checksRegistration?: boolean;
  /** `svc agent run --state-dir`: where an older release kept a claimed token. */
  agentRunStateDir?: string | undefined;
}

/** The credential picked: the target to use, the agent acted as (when known) and the kept token used. */
export interface AgentPick {
  target: Target;
  agentId?: string;
  kept?: KeptToken & { migratedFrom?: string };
  /** Where this network's tokens are kept; undefined when the network could not be asked. */
  scope?: CredentialScope;
}

/** Which network: its id and, from servers that have one, its unique id (GET /v1/network `uid`). */
export interface NetworkIdentity {
  id: string;
  uid?: string;
}

/**
 * The network that keys the kept tokens: the server's answer (GET /v1/network), else, when nothing
 * answers, the config's network.id for the config's own server (no uid then). Undefined when neither.
 */
export async function networkIdentityOf(target: Target): Promise<NetworkIdentity | undefined> {
  // The live runtime file of this config's server names its network: nothing to ask.
  const rt = target.runtime;
  if (target.verified && rt !== undefined && rt.network_uid !== undefined) return { id: rt.network_id, uid: rt.network_uid };
  // Asked without a token first: the network document is public on most servers, and the
  // operator token goes nowhere it is not needed.
  for (const token of target.token !== undefined ? [undefined, target.token] : [undefined]) {
    const client = new SvcClient({ url: target.url, ...(token !== undefined ? { token } : {}), timeoutMs: 5000 });
    try {
      const doc = await client.network();
      return { id: doc.id, ...(doc.uid !== undefined ? { uid: doc.uid } : {}) };
    } catch (err) {
      if (err instanceof ClientError && (err.status === 401 || err.status === 403)) continue;
      break;
    } finally {
      await client.close().catch(() => undefined);
    }
  }
  // Nothing answers (or not to this caller): the config says, for its own server, and the one
  // identity whose tokens are kept beside it gives the uid (none, or several: the address layout).
  if (target.urlSource !== 'config' && target.urlSource !== 'runtime') return undefined;
  if (target.networkId === undefined) return undefined;
  const uids = target.configExists ? uidsKeptBeside(target.configFile, target.networkId) : [];
  return { id: target.networkId, ...(uids.length === 1 ? { uid: uids[0]! } : {}) };
}

/** The network id of networkIdentityOf. */
export async function networkIdOf(target: Target): Promise<string | undefined> {
  return (await networkIdentityOf(target))?.id;
}

/** The scope of a target's network (an id alone, or its identity): tokens beside its config when it has one. */
export function scopeOf(target: Target, network: string | NetworkIdentity, env: NodeJS.ProcessEnv): CredentialScope {
  const { id, uid } = typeof network === 'string' ? { id: network, uid: undefined } : network;
  // Without a uid (an older server): this config's own server is named by its listen address, so a
  // port picked at start (port 0, --listen) does not lose the tokens kept for it at the next start.
  const url = target.listenAddr !== undefined ? keyUrlOfListenAddr(target.listenAddr) : target.url;
  return {
    networkId: id,
    ...(uid !== undefined ? { uid } : {}),
    url,
    ...(target.configExists ? { configFile: target.configFile } : {}),
    ...(env.HOME ? { home: env.HOME } : {}),
  };
}

/** The fix for "no agent credential for AGENT": the commands that keep one. */
export function keepFix(agent: string): string {
  return `register it with \`svc agents register --id ${agent}\` (its token is kept), or \`svc connect claude|codex|cursor --agent ${agent} --register\`; or pass its own agt_v1_ token with --token`;
}

/** Picks the credential for a command acting as an agent (see the file comment). */
export async function pickAgentToken(
  target: Target,
  need: AgentNeed,
  env: NodeJS.ProcessEnv,
  log?: (line: string) => void,
): Promise<AgentPick> {
  const given = target.tokenSource === '--token' || target.tokenSource === 'SVC_TOKEN';
  const agentToken = given && target.token?.startsWith(AGENT_TOKEN_PREFIX);
  if (need.agent === undefined && !(agentToken && need.infer)) return { target };
  if (given && !agentToken) return { target, ...(need.agent !== undefined ? { agentId: need.agent } : {}) };
  const network = await networkIdentityOf(target);
  const networkId = network?.id;
  const scope = network !== undefined ? scopeOf(target, network, env) : undefined;
  if (agentToken) {
    if (networkId === undefined) return { target, ...(need.agent !== undefined ? { agentId: need.agent } : {}) };
    const owner = await agentOfToken(target.url, target.token!, networkId, undefined, startCommandOf(target)).catch((err: unknown) => {
      // Nothing answers: said as for any request (svc mcp serves anyway and asks again later).
      if (err instanceof ClientError && err.status === undefined) throw err;
      throw new TargetError(`the agent token given (${target.tokenSource}) was not accepted: ${(err as Error).message}`);
    });
    if (need.agent !== undefined && need.agent !== owner) {
      throw new UsageError(
        `${need.flag} ${need.agent}: the token given (${target.tokenSource}) belongs to agent ${owner}; drop ${need.flag} (it is read from the token) or pass ${need.agent}'s own token`,
      );
    }
    return { target, agentId: owner, ...(scope ? { scope } : {}) };
  }
  const agent = need.agent!;
  if (scope) {
    const legacy = legacyTokenFiles(scope.networkId, agent, {
      ...(env.HOME ? { home: env.HOME } : {}),
      ...(need.agentRunStateDir !== undefined ? { agentRunStateDir: need.agentRunStateDir } : {}),
    });
    const kept = findToken(scope, agent, legacy);
    if (kept) {
      if (kept.migratedFrom) log?.(`the token of ${agent} found in ${kept.migratedFrom} is now kept in ${kept.file}`);
      const { operatorScopes: _scopes, ...rest } = target;
      return { target: { ...rest, token: kept.token, tokenSource: 'kept' }, agentId: agent, kept, scope };
    }
  }
  // The operator token may send as any id, so a typo in --as would speak as an agent nobody
  // registered: an id the network does not know is refused here (registering is `svc agents register`).
  if (target.tokenSource === 'config' && !need.attach && !need.checksRegistration && need.flag !== '--id')
    await requireRegistered(target, agent, need.flag, scope);
  if (need.attach && target.tokenSource === 'config') {
    if (!target.operatorScopes?.includes('attach')) {
      const where = scope ? ` on network ${scope.networkId} at ${target.url}` : '';
      throw new TargetError(
        `the config's operator token is an admin token and cannot act as agent ${agent} (it has no attach scope), and no token of ${agent} is kept${where}: ${keepFix(agent)}`,
      );
    }
  }
  return { target, agentId: agent, ...(scope ? { scope } : {}) };
}

/**
 * Whether `agent` is registered on the target's network: true or false when the server said, undefined
 * when it could not tell (a caller that does not see every agent gets 404 for one it may not see).
 */
export async function isRegistered(target: Target, agent: string): Promise<boolean | undefined> {
  const client = new SvcClient({ url: target.url, ...(target.token !== undefined ? { token: target.token } : {}), timeoutMs: 5000 });
  try {
    await client.getAgent(agent);
    return true;
  } catch (err) {
    if (err instanceof ClientError && err.status === 404) return false;
    // Unreachable, or not allowed to ask: the command itself meets and reports the same.
    return undefined;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** "Did you mean": the registered agent (or one kept here) closest to `agent`, as a sentence part. */
export async function didYouMean(target: Target, agent: string, scope?: CredentialScope): Promise<string> {
  const known = new Set<string>(scope ? keptAgents(scope) : []);
  const client = new SvcClient({ url: target.url, ...(target.token !== undefined ? { token: target.token } : {}), timeoutMs: 5000 });
  try {
    for (const a of (await client.listAgents({ limit: 500 })).agents) known.add(a.id);
  } catch {
    // the kept ones are still worth suggesting
  } finally {
    await client.close().catch(() => undefined);
  }
  const near = closestId(agent, known);
  if (near !== undefined) return ` (did you mean ${near}?)`;
  const some = [...known].sort().slice(0, 8);
  return some.length > 0 ? ` (registered: ${some.join(', ')}${known.size > some.length ? ', ...' : ''})` : '';
}

/** Refuses an agent id the network does not have, naming the closest one and how to register it. */
async function requireRegistered(target: Target, agent: string, flag: AgentNeed['flag'], scope?: CredentialScope): Promise<void> {
  // Only a caller that sees every agent can tell "not registered" from "not visible to me".
  if (!target.operatorScopes?.some((s) => s === 'observe' || s === 'admin')) return;
  if ((await isRegistered(target, agent)) !== false) return;
  throw new UsageError(
    `${flag} ${agent}: no agent ${agent} is registered on this network${await didYouMean(target, agent, scope)}; to make it, register it first: svc agents register --id ${agent}`,
  );
}

/**
 * A 403 "agent X is registered to another credential" with the fix appended: the kept token that
 * would work, or the commands that keep one. Other errors are returned as they are.
 */
export async function withCredentialHint(err: unknown, pick: AgentPick | undefined, env: NodeJS.ProcessEnv): Promise<unknown> {
  if (!(err instanceof ClientError)) return err;
  // A claim of an id held by another credential (409): the holder's token is the way back in.
  const taken = err.status === 409 ? /agent id (\S+) is already registered to another credential/.exec(err.message) : null;
  if (taken) {
    const id = taken[1]!;
    const base = err.message.replace(/; pick another id, or remove the existing one first$/, '');
    return new ClientError(
      `${base}; pick another id, or, if ${id} is yours, bring its token here: SVC_TOKEN=agt_v1_... svc agents register --id ${id} (svc agents token ${id} prints it where it is kept)`,
      err.status,
      err.code,
      err.requestId,
      { cause: err },
    );
  }
  const m = err.status === 403 ? /agent (\S+) is registered to another credential/.exec(err.message) : null;
  if (!m) return err;
  const agent = m[1]!.replace(/[;:,]$/, '');
  let scope = pick?.scope;
  if (!scope && pick) {
    const network = await networkIdentityOf(pick.target);
    if (network !== undefined) scope = scopeOf(pick.target, network, env);
  }
  const kept = scope ? readKeptToken(scope, agent) : undefined;
  let hint: string;
  if (kept && pick?.kept?.agentId !== agent) {
    const source = pick?.target.tokenSource;
    const given = source === '--token' || source === 'SVC_TOKEN';
    hint = `a token of ${agent} is kept in ${kept.file}: ${given ? `drop ${source} and ` : ''}pass --as ${agent} to use it`;
  } else {
    const others = scope ? keptAgents(scope) : [];
    hint = `no token of ${agent} is kept for this server; ${keepFix(agent)}${others.length > 0 ? ` (tokens kept here: ${others.join(', ')})` : ''}`;
  }
  // The generic 403 advice (another scope) does not fit this case: the fix is the agent's own token.
  const base = err.message.replace(/; use a token with the scope this needs[^;]*/, '');
  return new ClientError(`${base}; ${hint}`, err.status, err.code, err.requestId, { cause: err });
}
