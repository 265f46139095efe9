// A small remote A2A agent for the outbound tests, built with @a2a-js/sdk's server side: an
// AgentExecutor that answers each message with a task (its status message "echo: <text>" and an
// artifact holding a text, a data and a file part), mounted on a raw node:http server (JSON-RPC at
// /a2a, the card at /.well-known/agent-card.json). It records what it received and the
// Authorization header of every request.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentCard, type Message, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
} from '@a2a-js/sdk/server';

export interface TestAgent {
  url: string;
  cardUrl: string;
  /** The messages the executor received, in order. */
  received: Message[];
  /** The Authorization header of every request (card fetches and calls). */
  auth: (string | undefined)[];
  /** Card requests answered so far. */
  cardFetches(): number;
  close(): Promise<void>;
}

const textOf = (m: Message): string => m.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

const part = (content: Message['parts'][number]['content'], o: { filename?: string; mediaType?: string } = {}) => ({
  content,
  metadata: undefined,
  filename: o.filename ?? '',
  mediaType: o.mediaType ?? '',
});

/** Starts the agent on 127.0.0.1, port 0. */
export async function startTestAgent(name = 'echo'): Promise<TestAgent> {
  const received: Message[] = [];
  const auth: (string | undefined)[] = [];
  let cards = 0;
  const executor: AgentExecutor = {
    async execute(rc, bus) {
      const m = rc.userMessage;
      received.push(m);
      const base = { taskId: rc.taskId, contextId: rc.contextId, metadata: undefined };
      bus.publish(
        AgentEvent.task({
          id: rc.taskId,
          contextId: rc.contextId,
          status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
          artifacts: [],
          history: [m],
          metadata: undefined,
        }),
      );
      bus.publish(
        AgentEvent.artifactUpdate({
          ...base,
          append: false,
          lastChunk: true,
          artifact: {
            artifactId: 'report-1',
            name: 'report',
            description: 'what the agent found',
            parts: [
              part({ $case: 'text', value: `report on ${textOf(m)}` }),
              part({ $case: 'data', value: { turns: received.filter((x) => x.contextId === rc.contextId).length } }),
              part({ $case: 'raw', value: Buffer.from('col1,col2\n1,2\n') }, { filename: 'report.csv', mediaType: 'text/csv' }),
            ],
            metadata: undefined,
            extensions: [],
          },
        }),
      );
      bus.publish(
        AgentEvent.statusUpdate({
          ...base,
          status: {
            state: TaskState.TASK_STATE_COMPLETED,
            timestamp: new Date().toISOString(),
            message: {
              messageId: `${rc.taskId}-reply`,
              contextId: rc.contextId,
              taskId: rc.taskId,
              role: Role.ROLE_AGENT,
              parts: [part({ $case: 'text', value: `echo: ${textOf(m)}` })],
              metadata: undefined,
              extensions: [],
              referenceTaskIds: [],
            },
          },
        }),
      );
      bus.finished();
    },
    async cancelTask() {},
  };

  let base = '';
  const card = () =>
    AgentCard.fromJSON({
      name,
      description: 'answers with an echo and a report',
      version: '1.0.0',
      supportedInterfaces: [{ url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: false, pushNotifications: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain', 'application/json'],
      skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['test'] }],
    });
  const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
  const rpc = new JsonRpcTransportHandler(handler);

  const server = http.createServer((req, res) => {
    auth.push(req.headers.authorization);
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
      cards++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(AgentCard.toJSON(card())));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/a2a') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const version = req.headers['a2a-version'];
      const context = new ServerCallContext({
        state: new Map([['headers', req.headers]]),
        ...(typeof version === 'string' ? { requestedVersion: version } : {}),
      });
      const out = await rpc.handle(Buffer.concat(chunks).toString('utf8'), context);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    cardUrl: `${base}/.well-known/agent-card.json`,
    received,
    auth,
    cardFetches: () => cards,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
