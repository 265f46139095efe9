// Runs `svc mcp`: the MCP server on a transport at once, and the session behind its tools (the
// agent's identity, its attachment with a durable cursor, its read markers) started as soon as the
// network answers; until then tool calls are errors saying why, and each one tries again.

import path from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
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
import type { createMcpServer, Session } from './server.js';
import type { ToolSet } from './tool-host.js';
import { splitByEra } from './era.js';
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
  /** The tools features add beside the server's own. */
  tools?: readonly ToolSet[];
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
        if (s.state === 'ready') {
          inbox.attached();
          o.log(
            `svc mcp: attached as ${s.info.agent_id} on ${s.info.network_id} (cursor ${s.info.cursor}${s.info.resumed ? ', resumed' : ''})`,
          );
        } else if (s.state === 'disconnected') o.log(`svc mcp: attachment down (${s.reason}); retrying in ${s.retryInMs} ms`);
      },
    });
    attachment = a;
    if (closed) await a.close();
    inbox = new Inbox({ self, flush: () => a.flush(), failure: () => failure });
    channelOf = { inbox, self, file: path.join(stateDir, 'channel.json') };
    startChannelWhenReady();
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

  // The servers (one per era the connection chose; the 2.x entry may make a probe instance too)
  // get the inbox resource once the session exists.
  const inboxAdders: ((s: Session) => void)[] = [];
  let ready: Session | undefined;
  const addInboxTo = (add: (s: Session) => void): void => {
    inboxAdders.push(add);
    if (ready) add(ready);
  };
  let pending: Promise<Session> | undefined;
  const session = (): Promise<Session> =>
    (pending ??= start().then(
      (s) => {
        ready = s;
        for (const add of inboxAdders) add(s);
        return s;
      },
      (err: unknown) => {
        // Not kept: the next tool call (or the background retry) starts again.
        pending = undefined;
        throw err;
      },
    ));
  const agent = o.agent ? { agent: o.agent } : {};
  // A 2025-era connection: the 1.x server, with mentions and DMs also pushed to the client as
  // claude/channel events when it takes them (channel.ts; the 2026 revision has no such push).
  let legacy: ReturnType<typeof createMcpServer>['server'] | undefined;
  let modern: { close(): Promise<void> } | undefined;
  let channelOf: Omit<Parameters<typeof startChannel>[0], 'server' | 'log'> | undefined;
  const startChannelWhenReady = (): void => {
    if (!legacy || !channelOf || channel || closed) return;
    channel = startChannel({ server: legacy.server, ...channelOf, log: o.log });
  };
  // Started now, not on the first call: the attachment should collect arrivals from the start.
  const kick = (): void => {
    if (closed) return;
    session().catch((err: unknown) => {
      o.log(`svc mcp: ${(err as Error).message}`);
      const unreachable = err instanceof ClientError && err.status === undefined;
      if (unreachable && !closed) retry = setTimeout(kick, RETRY_MS);
    });
  };

  await splitByEra(o.transport, async (era, transport) => {
    if (closed) return;
    // Each era's SDK is loaded when a client speaks it: a command needs one of the two.
    if (era === 'modern') {
      const [{ serveStdio }, { createModernServer }] = await Promise.all([
        import('@modelcontextprotocol/server/stdio'),
        import('./server-2026.js'),
      ]);
      modern = serveStdio(
        () => {
          const m = createModernServer({ session, ...agent, ...(o.tools ? { tools: o.tools } : {}) });
          addInboxTo(m.addInbox);
          return m.server;
        },
        { legacy: 'reject', transport, onerror: (err) => o.log(`svc mcp: ${err.message}`) },
      );
      o.log('svc mcp: the client speaks MCP 2026-07-28');
      return;
    }
    const { createMcpServer } = await import('./server.js');
    const l = createMcpServer({ session, channel: true, ...agent, ...(o.tools ? { tools: o.tools } : {}) });
    legacy = l.server;
    addInboxTo(l.addInbox);
    await l.server.connect(transport);
    startChannelWhenReady();
  });
  kick();
  return {
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(retry);
      channel?.close();
      await legacy?.close().catch(() => undefined);
      await modern?.close().catch(() => undefined);
      await attachment?.close().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}
