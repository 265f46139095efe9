// Whether a remote A2A agent answers, from its card checks and calls: `unknown` until the first
// check, `up` after a success, `down` after `down_after` failures in a row. Pure: the feature feeds
// it outcomes and acts on the changes it reports (presence events, the metric, warnings).

import type { Warning } from '../../protocol/types.js';

export type A2aStatus = 'unknown' | 'up' | 'down';

export class Health {
  status: A2aStatus = 'unknown';
  /** Failures in a row since the last success. */
  failures = 0;
  /** When the agent went down (ISO). */
  downSince: string | undefined;
  lastError: string | undefined;

  constructor(private readonly downAfter: number) {}

  /** Records a success; answers `up` when this changed the status. */
  ok(): 'up' | undefined {
    this.failures = 0;
    this.lastError = undefined;
    this.downSince = undefined;
    if (this.status === 'up') return undefined;
    this.status = 'up';
    return 'up';
  }

  /** Records a failure; answers `down` when this one made the agent down. */
  fail(error: string, at: Date): 'down' | undefined {
    this.failures++;
    this.lastError = error;
    if (this.status === 'down' || this.failures < this.downAfter) return undefined;
    this.status = 'down';
    this.downSince = at.toISOString();
    return 'down';
  }
}

/** The operator warning of a down agent (GET /v1/network, svc doctor). */
export function downWarning(id: string, cardUrl: string, h: Health, intervalMs: number): Warning {
  return {
    severity: 'warning',
    code: 'a2a_agent_down',
    message: `A2A agent ${id} is down since ${h.downSince}: ${h.failures} checks of its card (${cardUrl}) or calls failed in a row (last: ${h.lastError})`,
    action: `check that the agent is running and its card answers; svc checks it again every ${intervalMs} ms, and meanwhile answers each mention or DM to ${id} with a notice`,
    docs_url: 'docs/a2a.md#outbound',
  };
}

/** A short, single-line reason for an error (no stack, bounded). */
export function reasonOf(err: unknown): string {
  const e = err as { message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const base = typeof e?.message === 'string' ? e.message : String(err);
  // A refused private address says which address and why (its message); other causes their code.
  const cause = e?.cause?.code === 'EPRIVATE' ? `EPRIVATE: ${String(e.cause.message)}` : (e?.cause?.code ?? e?.cause?.message);
  const line = (cause && !base.includes(String(cause)) ? `${base} (${String(cause)})` : base).replace(/\s+/g, ' ');
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}
