// A /v1/mcp request that is exactly one wait_for_messages call is answered here, without the SDK's
// server and transport (#38 item 9). A wait may stay open five minutes, and each request's SDK server
// (its tools and their schemas), transport and web-stream plumbing held about 190 KB of heap
// for that long; answered here, a wait holds its request, its session and a feed subscription
// (bench/tools/mcp-wait-memory.ts measures it; docs/security.md keeps the figure). Everything else,
// and any wait call the SDK would refuse (transport headers, arguments), still goes through the SDK,
// which then answers it as before. The answer is the SDK's, byte for byte: an SSE stream with the
// progress notifications the call asked for, the transport's keep-alive comments and the JSON-RPC
// result; a failure is a tool error. What the SDK judges (the message, the media type, the protocol
// version, the result) is judged with the SDK's own schemas and helpers, so the two cannot drift.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_SSE_KEEP_ALIVE_MS } from '@modelcontextprotocol/sdk/server/sseKeepAlive.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  CallToolResultSchema,
  isJSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { PROGRESS_EVERY_MS, waitArgsOf, type WaitArgs } from '../mcp/wait.js';

export interface WaitCall {
  id: string | number;
  args: WaitArgs;
  progressToken?: string | number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The wait call `body` is, when the SDK would run it as one; undefined for anything else. */
export function waitCallOf(req: IncomingMessage, body: unknown): WaitCall | undefined {
  // Most requests are other calls: they are passed on before any schema runs.
  const params = isObject(body) && body.method === 'tools/call' ? body.params : undefined;
  if (!isObject(params) || params.name !== 'wait_for_messages') return undefined;
  // The transport's header checks (webStandardStreamableHttp.js handlePostRequest), cheapest first.
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(req.headers['content-type'])) return undefined;
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && (typeof version !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
  // The message as the transport (a strict JSON-RPC request: an integer or string id, a valid
  // progress token) and the server's tools/call handler read it. A task-augmented call is the
  // SDK's to answer (or refuse).
  if (!isJSONRPCRequest(body)) return undefined;
  const call = CallToolRequestSchema.safeParse(body);
  if (!call.success || call.data.params.task !== undefined) return undefined;
  const args = waitArgsOf(call.data.params.arguments);
  if (!args) return undefined;
  const token = call.data.params._meta?.progressToken;
  return { id: body.id, args, ...(token !== undefined ? { progressToken: token } : {}) };
}

// Module functions, not closures per call: an open wait holds as little as it can (#38 item 9).
const isOpen = (res: ServerResponse) => !res.writableEnded && !res.destroyed;
function send(res: ServerResponse, message: unknown): void {
  if (isOpen(res)) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/**
 * The transport's keep-alive comment, for every open wait from one timer: the SDK arms an interval
 * per stream (sseKeepAlive.js), which a wait would hold for minutes. A stream gets its first comment
 * within one interval of opening, as it would from its own timer.
 */
const streams = new Set<ServerResponse>();
let ticker: NodeJS.Timeout | undefined;
function keepAlive(res: ServerResponse): void {
  streams.add(res);
  ticker ??= setInterval(tick, DEFAULT_SSE_KEEP_ALIVE_MS).unref();
}
function forget(res: ServerResponse): void {
  streams.delete(res);
  if (streams.size === 0 && ticker) {
    clearInterval(ticker);
    ticker = undefined;
  }
}
function tick(): void {
  for (const res of streams) if (isOpen(res)) res.write(': keepalive\n\n');
}

/**
 * The SSE answer of one wait call, as the SDK writes it: headers at once (the client knows the call
 * is running before anything comes), progress notifications while it waits when the call asked for
 * them, the transport's keep-alive comment, then the result.
 */
export class WaitAnswer {
  #beat: NodeJS.Timeout | undefined;
  #n = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly call: WaitCall,
  ) {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    // Without a progress token nothing else is written for up to five minutes: the transport's
    // comment keeps proxies and idle timeouts from closing the stream meanwhile.
    keepAlive(res);
    if (call.progressToken !== undefined) this.#beat = setInterval(this.#progress, PROGRESS_EVERY_MS);
  }

  // Key order as the SDK's Protocol writes its messages ({...notification, jsonrpc}; {result, jsonrpc, id}).
  readonly #progress = (): void =>
    send(this.res, {
      method: 'notifications/progress',
      params: { progressToken: this.call.progressToken, progress: ++this.#n, message: 'waiting for messages' },
      jsonrpc: '2.0',
    });

  /**
   * Ends the stream with the call's result (an error becomes a tool error, as the server's tools/call
   * handler makes it), or with none: a call stopped by its client ends as the SDK's closed transport
   * ends it.
   */
  finish(outcome: CallToolResult | Error | undefined): void {
    clearInterval(this.#beat);
    forget(this.res);
    if (outcome !== undefined) send(this.res, { result: toolResult(outcome), jsonrpc: '2.0', id: this.call.id });
    this.res.end();
  }
}

/** The result as the server's tools/call handler answers it (CallToolResultSchema parses it). */
function toolResult(outcome: CallToolResult | Error): CallToolResult {
  if (!(outcome instanceof Error)) {
    const parsed = CallToolResultSchema.safeParse(outcome);
    if (parsed.success) return parsed.data;
    outcome = new Error(parsed.error.message);
  }
  return { content: [{ type: 'text', text: outcome.message }], isError: true };
}
