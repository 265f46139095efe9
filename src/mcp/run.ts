// Runs `svc mcp`: the MCP server on a transport at once, and the session behind its tools (the
// agent's identity, its attachment with a durable cursor, its read markers) started as soon as the
// network answers; until then tool calls are errors saying why, and each one tries again.

import path from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { answerMalformedInput } from './malformed-input.js';
import { attach, type Attachment } from '../client/attach.js';
import { ClientError } from '../client/errors.js';
import { SvcClient } from '../client/svc-client.js';
import { Readable } from 'node:stream';
import type { FilesPort } from './files-port.js';
import { type ChannelHandle, startChannel } from './channel.js';
import { selfOf } from './format.js';
import { resolveAgentId } from './identity.js';
import { Inbox } from './inbox.js';
import { ReadMarkers } from './read-markers.js';
import { createMcpServer, type Session } from './server.js';
import { stateDirOf } from './state-dir.js';
import { VERSION } from '../version.js';

export interface RunOptions {
  url: string;
  token?: string;
  agent?: string;
  /** Where the cursor and read markers live (default ~/.svc/mcp/<network>@<uid>/<agent>: state-dir.ts). */
  stateDir?: string;
  /** The start command for "nothing answers" messages. */
  startCommand?: string;
  /** Run before the network is first asked (checks it is the one the token may go to); throws to refuse. */
  verify?: () => Promise<void>;
  transport: Transport;
  /** Keeps a token a first claim got (keyed by the network's id and uid); returns the file. */
  keepToken?: (network: { id: string; uid?: string }, agentId: string, token: string) => string;
  /** One line per session or attachment change, for stderr (stdout carries the protocol). */
  log: (line: string) => void;
}

export interface McpHandle {
  close(): Promise<void>;
}

/** While the network does not answer, the session is tried again this often in the background. */
const RETRY_MS = 2000;

export async function runMcp(o: RunOptions): Promise<McpHandle> {
  const client = new SvcClient({
    url: o.url,
    ...(o.token !== undefined ? { token: o.token } : {}),
    ...(o.startCommand ? { startCommand: o.startCommand } : {}),
  });
  let attachment: Attachment | undefined;
  let channel: ChannelHandle | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  let verify = o.verify;
  const start = async (): Promise<Session> => {
    if (verify) {
      await verify();
      verify = undefined;
    }
    const doc = await client.network();
    const agentId = await resolveAgentId({ agent: o.agent, url: o.url, token: o.token, networkId: doc.id });
    const self = selfOf(doc.id, agentId, o.url);
    const stateDir = path.resolve(o.stateDir ?? stateDirOf(doc, agentId, o.log));
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
      userAgent: `svc-mcp/${VERSION} (pid ${process.pid})`,
      onEvent: (e) => inbox.push(e),
      // A first claim under open registration: the token is shown once, so it is kept at once.
      ...(o.keepToken
        ? {
            onAgentToken: (t: string) =>
              o.log(`svc mcp: registered ${agentId}; its agent token is kept in ${o.keepToken!(doc, agentId, t)}`),
          }
        : {}),
      onStatus: (s) => {
        if (s.state === 'ready')
          o.log(
            `svc mcp: attached as ${s.info.agent_id} on ${s.info.network_id} (cursor ${s.info.cursor}${s.info.resumed ? ', resumed' : ''})`,
          );
        else if (s.state === 'disconnected') o.log(`svc mcp: attachment down (${s.reason}); retrying in ${s.retryInMs} ms`);
      },
    });
    attachment = a;
    if (closed) await a.close();
    inbox = new Inbox({ self, flush: () => a.flush(), failure: () => failure });
    // Mentions and DMs also go to the client as claude/channel events when it takes them.
    channel = startChannel({ server: server.server, inbox, self, file: path.join(stateDir, 'channel.json'), log: o.log });
    a.done.catch((err: unknown) => {
      failure = new Error(`live delivery stopped: ${(err as Error).message}`);
      o.log(`svc mcp: ${failure.message}`);
      inbox.interrupt();
    });
    o.log(`svc mcp: acting as agent ${agentId} of network ${doc.id} (state in ${stateDir})`);
    const files: FilesPort = {
      upload: (bytes, f) =>
        client.files.upload(Readable.from([bytes]), {
          name: f.name,
          size: bytes.length,
          ...(f.contentType ? { contentType: f.contentType } : {}),
        }),
      uploadUrl: (f) => client.files.uploadUrl(f),
    };
    return { ctx: { client, self, markers, files }, inbox, dmsEnabled: doc.capabilities.direct_messages };
  };

  let pending: Promise<Session> | undefined;
  const session = (): Promise<Session> =>
    (pending ??= start().then(
      (s) => {
        addInbox(s);
        return s;
      },
      (err: unknown) => {
        // Not kept: the next tool call (or the background retry) starts again.
        pending = undefined;
        throw err;
      },
    ));
  const { server, addInbox } = createMcpServer({ session, channel: true, ...(o.agent ? { agent: o.agent } : {}) });
  // Started now, not on the first call: the attachment should collect arrivals from the start.
  const kick = (): void => {
    if (closed) return;
    session().catch((err: unknown) => {
      o.log(`svc mcp: ${(err as Error).message}`);
      const unreachable = err instanceof ClientError && err.status === undefined;
      if (unreachable && !closed) retry = setTimeout(kick, RETRY_MS);
    });
  };

  await server.connect(o.transport);
  answerMalformedInput(o.transport);
  kick();
  return {
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(retry);
      channel?.close();
      await server.close().catch(() => undefined);
      await attachment?.close().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}
