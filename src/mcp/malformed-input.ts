// JSON-RPC answers to input the MCP SDK's transport cannot read. The SDK's stdio transport skips a
// bad line and only reports it to `onerror`, so a client that sent one would wait forever; JSON-RPC
// 2.0 says such input gets an error with id null: -32700 when the line is not JSON, -32600 when it
// is JSON but not a JSON-RPC message (or too deep to check).

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

/** The JSON-RPC error code for an error the transport reported while reading a line, if it is one. */
export function readErrorCode(err: unknown): number | undefined {
  if (err instanceof SyntaxError) return PARSE_ERROR;
  if (err instanceof RangeError) return INVALID_REQUEST; // a value too deep to validate
  if (err instanceof Error && err.name === 'ZodError') return INVALID_REQUEST;
  return undefined;
}

/** Makes `transport` answer lines it cannot read (call after the server connected, which sets onerror). */
export function answerMalformedInput(transport: Transport): void {
  const previous = transport.onerror;
  transport.onerror = (err: Error) => {
    const code = readErrorCode(err);
    if (code !== undefined) {
      const message = code === PARSE_ERROR ? 'Parse error' : 'Invalid Request';
      // id null is what JSON-RPC prescribes when the request's id could not be read; the SDK's
      // message type does not admit it, hence the cast.
      const reply = { jsonrpc: '2.0', id: null, error: { code, message } } as unknown as JSONRPCMessage;
      transport.send(reply).catch(() => undefined);
    }
    previous?.(err);
  };
}
