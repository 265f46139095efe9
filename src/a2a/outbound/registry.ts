// The remote A2A agents of one server: svc.yaml's `a2a_agents`, then those `svc apply` declared,
// kept in the store's key/value table (kind `a2a_agent`) so every instance on the store and a
// restart see them. svc.yaml wins: an id it declares cannot be applied differently (409). Tokens
// arrive resolved in the admin-only apply body and are never answered back.

import { A2A_AGENT_DEFAULTS, checkA2aAgent, type A2aAgentConfig } from '../../config/a2a-agents.js';
import { checkUniqueIds } from '../../config/sections.js';
import { AppError, badRequest } from '../../errors.js';
import type { ApplyRequest, ApplyResponse, DeclaredA2aAgent } from '../../protocol/types.js';
import type { Store } from '../../store/types.js';

type Change = NonNullable<ApplyResponse['changes']>[number];

const KIND = 'a2a_agent';

/** A declaration with svc.yaml's defaults. */
export function agentOf(d: DeclaredA2aAgent): A2aAgentConfig {
  return {
    id: d.id,
    ...(d.name !== undefined ? { name: d.name } : {}),
    card_url: d.card_url,
    ...(d.auth_env !== undefined ? { auth_env: d.auth_env } : {}),
    ...(d.token !== undefined ? { token: d.token } : {}),
    rooms: d.rooms ?? [],
    check_interval_ms: d.check_interval_ms ?? A2A_AGENT_DEFAULTS.check_interval_ms,
    down_after: d.down_after ?? A2A_AGENT_DEFAULTS.down_after,
    timeout_ms: d.timeout_ms ?? A2A_AGENT_DEFAULTS.timeout_ms,
    catch_up_max_age_ms: d.catch_up_max_age_ms ?? A2A_AGENT_DEFAULTS.catch_up_max_age_ms,
    allow_private_network: d.allow_private_network ?? A2A_AGENT_DEFAULTS.allow_private_network,
  };
}

/** What makes two declarations the same agent (the variable a token was read from does not). */
function key(a: A2aAgentConfig): string {
  return JSON.stringify([
    a.name ?? null,
    a.card_url,
    a.token ?? null,
    a.rooms,
    a.check_interval_ms,
    a.down_after,
    a.timeout_ms,
    a.catch_up_max_age_ms,
    a.allow_private_network,
  ]);
}

export class A2aRegistry {
  private applied: A2aAgentConfig[] = [];
  /** The stored rows as last read: a refresh that reads the same changes nothing. */
  private seen = '';

  constructor(
    private readonly store: () => Store,
    private readonly file: () => readonly A2aAgentConfig[],
    /** Called when the applied agents read from the store changed. */
    private readonly changed: () => void,
  ) {}

  /** Reads the store again; calls `changed` when what it holds differs from the last read. */
  async refresh(): Promise<void> {
    const rows = await this.store().kv.list(KIND);
    const k = JSON.stringify(rows.map((r) => r.value));
    if (k === this.seen) return;
    this.seen = k;
    this.applied = rows.map((r) => JSON.parse(r.value) as A2aAgentConfig);
    this.changed();
  }

  /** svc.yaml's agents, then the applied ones whose id it does not declare. */
  all(): A2aAgentConfig[] {
    const own = this.file();
    return [...own, ...this.applied.filter((a) => !own.some((o) => o.id === a.id))];
  }

  /** Refuses a bad declaration before anything of the apply is written: 400 naming the field, 409 for an id svc.yaml declares otherwise. */
  async check(req: ApplyRequest): Promise<void> {
    const fail = (line: string): never => {
      throw badRequest(line);
    };
    const list = req.a2a_agents ?? [];
    list.forEach((d, i) => {
      const at = `body.a2a_agents[${i}]`;
      checkA2aAgent(d, at, fail);
      const own = this.file().find((o) => o.id === d.id);
      if (own && key(own) !== key(agentOf(d)))
        throw new AppError(
          'conflict',
          `${at}.id: A2A agent ${d.id} is declared differently in the server's svc.yaml, which wins; change it there, or apply it under another id`,
        );
    });
    checkUniqueIds(
      list.map((d) => d.id),
      'body.a2a_agents',
      fail,
    );
  }

  /** Stores the declarations `check` accepted (created or updated; svc.yaml's own are left to it). */
  async apply(req: ApplyRequest): Promise<Change[]> {
    const kv = this.store().kv;
    const changes: Change[] = [];
    for (const d of req.a2a_agents ?? []) {
      if (this.file().some((o) => o.id === d.id)) {
        changes.push({ kind: 'a2a_agent', id: d.id, action: 'unchanged' });
        continue;
      }
      const value = JSON.stringify(agentOf(d));
      const prev = await kv.get(KIND, d.id);
      if (prev?.value === value) changes.push({ kind: 'a2a_agent', id: d.id, action: 'unchanged' });
      else {
        await kv.put({ kind: KIND, id: d.id, value });
        changes.push({ kind: 'a2a_agent', id: d.id, action: prev ? 'updated' : 'created' });
      }
    }
    await this.refresh();
    return changes;
  }
}
