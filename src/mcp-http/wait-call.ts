// A /v1/mcp request that is exactly one wait_for_messages call is answered here, without the SDK's
// server and transport (#38 item 9). A wait may stay open five minutes, and each request's SDK server
// (its seven tools and their schemas), transport and web-stream plumbing held about 230 KB of heap
// for that long; answered here, a wait holds its request, its session and a feed subscription
// (bench/tools/mcp-wait-memory.ts measures it; docs/security.md keeps the figure). Everything else,
// and any wait call the SDK would refuse (transport headers, arguments), still goes through the SDK,
// which then answers it as before. The answer is the SDK's: an SSE stream with the progress
// notifications the call asked for and its JSON-RPC result; a failure is a tool error.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CallToolResult, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { waitArgsOf, type WaitArgs } from '../mcp/wait.js';

export interface WaitCall {
  id: string | number;
  args: WaitArgs;
  progressToken?: string | number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The wait call `body` is, when the SDK would run it as one; undefined for anything else. */
export function waitCallOf(req: IncomingMessage, body: unknown): WaitCall | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  const { id, params } = body;
  if ((typeof id !== 'string' && typeof id !== 'number') || !isObject(params) || params.name !== 'wait_for_messages') return undefined;
  // The transport's own checks (webStandardStreamableHttp.js): failing one, the SDK answers it.
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if ((req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/json') return undefined;
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && (typeof version !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
  const args = waitArgsOf(params.arguments);
  if (!args) return undefined;
  const token = isObject(params._meta) ? params._meta.progressToken : undefined;
  return { id, args, ...(typeof token === 'string' || typeof token === 'number' ? { progressToken: token } : {}) };
}

/**
 * Answers `call` on `res` as the SDK would: SSE, progress notifications while `run` waits, then the
 * result (a thrown error becomes a tool error). A call stopped by `signal` (the client went away or
 * cancelled it) ends with no result, as the SDK's closed transport ends it.
 */
export async function answerWait(
  res: ServerResponse,
  call: WaitCall,
  run: (progress?: (n: number) => void) => Promise<CallToolResult>,
  signal: AbortSignal,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // At once, as the SDK does: the client knows the call is running before anything comes.
  res.flushHeaders();
  const send = (message: unknown) => {
    if (!res.writableEnded && !res.destroyed) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  };
  const token = call.progressToken;
  const progress =
    token === undefined
      ? undefined
      : (n: number) =>
          send({
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: token, progress: n, message: 'waiting for messages' },
          });
  let result: CallToolResult;
  try {
    result = await run(progress);
  } catch (err) {
    result = { content: [{ type: 'text', text: err instanceof Error ? err.message : String(err) }], isError: true };
  }
  if (!signal.aborted) send({ jsonrpc: '2.0', id: call.id, result });
  res.end();
}
