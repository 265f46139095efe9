// Proves an MCP client's setup the way the client itself would use it: starts the server entry
// (same command, arguments, environment, folder) over stdio, calls `whoami`, and waits until the
// agent is attached. Used by `svc connect` before it reports success.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ServerEntry } from './client-config.js';

/** What the started server said about itself. */
export interface ProbeResult {
  agentId: string;
  networkId?: string;
  registered: boolean;
  /**
   * Set when the credential was accepted but the agent's one attachment is held by another runtime
   * of the same credential (`svc agent run`, another `svc mcp`): the server's words. The entry is
   * proven (the server checks the token and the agent before it looks at the attachment), and it
   * attaches once the holder lets go.
   */
  held?: string;
}

/** Why the proof failed, with what the server wrote to stderr (its last lines). */
export class ProbeError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'ProbeError';
  }
}

// What `svc mcp` logs once the agent is attached, and when it is refused.
const ATTACHED = /svc mcp: attached as (\S+)/;
const REFUSED = /svc mcp: (attachment down|live delivery stopped)[^\n]*/;
// The refusal of an attachment whose agent is attached already with this same credential.
const HELD = /session_in_use: ([^\n]*?)\)?(; retrying in \d+ ms)?$/;

/** Starts `entry` in `cwd` (environment: `baseEnv` plus the entry's own), calls whoami and waits for the attachment. */
export async function probeWhoami(
  entry: ServerEntry,
  o: { cwd: string; baseEnv: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ProbeResult> {
  const env = Object.fromEntries(
    Object.entries({ ...o.baseEnv, ...entry.env }).filter((kv): kv is [string, string] => typeof kv[1] === 'string'),
  );
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env, cwd: o.cwd, stderr: 'pipe' });
  let stderr = '';
  let changed: () => void = () => undefined;
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
    changed();
  });
  const client = new Client({ name: 'svc-connect-check', version: '1.0.0' });
  const timeoutMs = o.timeoutMs ?? 20_000;
  const tail = () => stderr.trim().split('\n').slice(-3).join(' | ');
  try {
    await client.connect(transport, { timeout: timeoutMs }).catch((err: unknown) => {
      throw new ProbeError(`the server did not start: ${(err as Error).message}${stderr ? ` (${tail()})` : ''}`, stderr);
    });
    const r = (await client.callTool({ name: 'whoami', arguments: {} }, undefined, { timeout: timeoutMs })) as CallToolResult;
    const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    if (r.isError) throw new ProbeError(`whoami failed: ${text.split('\n')[0]}`, stderr);
    const s = r.structuredContent as { agent?: { id?: string; registered?: boolean }; network?: { id?: string } } | undefined;
    const agentId = s?.agent?.id ?? /^agent (\S+)/.exec(text)?.[1];
    if (!agentId) throw new ProbeError(`whoami did not name the agent: ${text.split('\n')[0]}`, stderr);
    // whoami answers from the network document; the attachment proves the credential.
    let held: string | undefined;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new ProbeError(`the agent did not attach within ${timeoutMs} ms${stderr ? ` (${tail()})` : ''}`, stderr)),
        timeoutMs,
      );
      changed = () => {
        const refused = REFUSED.exec(stderr);
        const inUse = refused ? HELD.exec(refused[0]) : null;
        if (inUse) {
          clearTimeout(timer);
          held = inUse[1]!;
          resolve();
        } else if (refused) {
          clearTimeout(timer);
          reject(new ProbeError(refused[0].replace(/^svc mcp: /, ''), stderr));
        } else if (ATTACHED.test(stderr)) {
          clearTimeout(timer);
          resolve();
        }
      };
      changed();
    });
    return {
      agentId,
      ...(s?.network?.id ? { networkId: s.network.id } : {}),
      registered: s?.agent?.registered ?? true,
      ...(held !== undefined ? { held } : {}),
    };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Connects to `url` over Streamable HTTP with `headers` (the remote entry, as the client will) and calls whoami. */
export async function probeWhoamiHttp(url: string, headers: Record<string, string>, timeoutMs = 20_000): Promise<ProbeResult> {
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'svc-connect-check', version: '1.0.0' });
  try {
    await client.connect(transport, { timeout: timeoutMs }).catch((err: unknown) => {
      throw new ProbeError(`${url} did not answer MCP: ${(err as Error).message}`, '');
    });
    const r = (await client.callTool({ name: 'whoami', arguments: {} }, undefined, { timeout: timeoutMs })) as CallToolResult;
    const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    if (r.isError) throw new ProbeError(`whoami failed: ${text.split('\n')[0]}`, '');
    const s = r.structuredContent as { agent?: { id?: string; registered?: boolean }; network?: { id?: string } } | undefined;
    const agentId = s?.agent?.id;
    if (!agentId) throw new ProbeError(`whoami did not name the agent: ${text.split('\n')[0]}`, '');
    return { agentId, ...(s?.network?.id ? { networkId: s.network.id } : {}), registered: s?.agent?.registered ?? true };
  } finally {
    await client.close().catch(() => undefined);
  }
}
