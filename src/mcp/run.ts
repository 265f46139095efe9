// Runs `svc mcp`: the agent's identity, its attachment (live arrival with a durable cursor), its
// read markers, and the MCP server on a transport. Returns a handle whose close() detaches cleanly.

import os from 'node:os';
import path from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { attach, type Attachment } from '../client/attach.js';
import { SvcClient } from '../client/index.js';
import { selfOf } from './format.js';
import { resolveAgentId } from './identity.js';
import { Inbox } from './inbox.js';
import { ReadMarkers } from './read-markers.js';
import { createMcpServer } from './server.js';

export interface RunOptions {
  url: string;
  token?: string;
  agent?: string;
  /** Where the cursor and read markers live (default ~/.svc/mcp/<network>/<agent>). */
  stateDir?: string;
  /** The start command for "nothing answers" messages. */
  startCommand?: string;
  transport: Transport;
  /** One line per attachment change, for stderr (stdout carries the protocol). */
  log: (line: string) => void;
}

export interface McpHandle {
  agentId: string;
  networkId: string;
  stateDir: string;
  close(): Promise<void>;
}

/** The folder of an agent's state when --state-dir is not given. */
export function defaultStateDir(networkId: string, agentId: string, home = os.homedir()): string {
  return path.join(home, '.svc', 'mcp', networkId, agentId);
}

export async function runMcp(o: RunOptions): Promise<McpHandle> {
  const client = new SvcClient({ url: o.url, ...(o.token !== undefined ? { token: o.token } : {}), ...(o.startCommand ? { startCommand: o.startCommand } : {}) });
  let attachment: Attachment | undefined;
  try {
    const doc = await client.network();
    const agentId = await resolveAgentId({ agent: o.agent, url: o.url, token: o.token });
    const self = selfOf(doc.id, agentId);
    const stateDir = path.resolve(o.stateDir ?? defaultStateDir(doc.id, agentId));
    const markers = ReadMarkers.open(path.join(stateDir, 'read.json'));

    let failure: Error | undefined;
    // The inbox and the attachment refer to each other; events flow only after READY, by when both exist.
    let inbox!: Inbox;
    const a = attach({
      url: o.url,
      ...(o.token !== undefined ? { token: o.token } : {}),
      agent: { id: agentId },
      networkId: doc.id,
      cursorStore: path.join(stateDir, 'cursor.json'),
      ackMode: 'manual',
      waitForServer: true,
      onEvent: (e) => inbox.push(e),
      onStatus: (s) => {
        if (s.state === 'ready') o.log(`svc mcp: attached as ${s.info.agent_id} on ${s.info.network_id} (cursor ${s.info.cursor}${s.info.resumed ? ', resumed' : ''})`);
        else if (s.state === 'disconnected') o.log(`svc mcp: attachment down (${s.reason}); retrying in ${s.retryInMs} ms`);
      },
    });
    attachment = a;
    inbox = new Inbox({ self, flush: () => a.flush(), failure: () => failure });
    a.done.catch((err: unknown) => {
      failure = new Error(`live delivery stopped: ${(err as Error).message}`);
      o.log(`svc mcp: ${failure.message}`);
      inbox.interrupt();
    });

    const server = createMcpServer({ ctx: { client, self, markers }, inbox, dmsEnabled: doc.capabilities.direct_messages });
    await server.connect(o.transport);
    let closing: Promise<void> | undefined;
    return {
      agentId,
      networkId: doc.id,
      stateDir,
      close: () =>
        (closing ??= (async () => {
          await server.close().catch(() => undefined);
          await a.close().catch(() => undefined);
          await client.close().catch(() => undefined);
        })()),
    };
  } catch (err) {
    await attachment?.close().catch(() => undefined);
    await client.close().catch(() => undefined);
    throw err;
  }
}
