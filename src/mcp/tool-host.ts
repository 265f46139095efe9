// The tools are written once and registered on two SDK servers: the 1.x `McpServer` that answers
// clients of the 2025 handshake (`initialize`), and the 2.x one that answers 2026-07-28 requests
// (server-2026.ts). Their registerTool calls take the same config (zod shapes, annotations, icons)
// and differ only in what a handler's second argument holds; a ToolHost hides that difference, so
// a tool file names neither SDK.

import type { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_ICONS } from './icons.js';
import type { Session } from './session.js';

type Shape = z.ZodRawShape;

/** What a running tool may use of its call, in either era. */
export interface ToolCall {
  /** Aborted when the client cancels the call or goes away. */
  signal?: AbortSignal;
  /** Present when the client asked for progress: sends one notification. */
  progress?: (n: number, message: string) => void;
}

export interface ToolConfig<I extends Shape | undefined> {
  title: string;
  description: string;
  inputSchema?: I;
  /** The shape of `structuredContent` (2026-07-28: structured output is declared). */
  outputSchema: z.ZodType;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

export type ToolArgs<I extends Shape | undefined> = I extends Shape ? z.infer<z.ZodObject<I>> : Record<string, never>;

export interface ToolHost {
  tool<I extends Shape | undefined>(
    name: string,
    config: ToolConfig<I>,
    run: (args: ToolArgs<I>, call: ToolCall) => Promise<CallToolResult>,
  ): void;
}

/**
 * Tools a feature adds to the MCP server, declared in its folder: registered beside the
 * server's own on either era's host, reaching the network through the same session.
 */
export type ToolSet = (host: ToolHost, session: () => Promise<Session>) => void;

/** The part of either SDK's `McpServer` a host registers through (their overloads differ in types only). */
interface Registrar {
  registerTool(name: string, config: Record<string, unknown>, cb: (...a: unknown[]) => unknown): unknown;
}

/** What a handler's second argument gives a tool, read out of the era's shape. */
type CallOf = (extra: unknown) => ToolCall;

function hostOf(server: unknown, callOf: CallOf): ToolHost {
  const reg = server as Registrar;
  return {
    tool(name, config, run) {
      const full = { ...config, icons: TOOL_ICONS };
      // A tool without input schema is called with the extra argument alone.
      const cb = config.inputSchema
        ? (args: unknown, extra: unknown) => run(args as never, callOf(extra))
        : (extra: unknown) => run({} as never, callOf(extra));
      reg.registerTool(name, full, cb as (...a: unknown[]) => unknown);
    },
  };
}

interface LegacyExtra {
  signal?: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification?: (n: { method: string; params: Record<string, unknown> }) => Promise<void>;
}

/** A host over the 1.x SDK's McpServer (2025-era clients). */
export function legacyToolHost(server: unknown): ToolHost {
  return hostOf(server, (raw) => {
    const extra = raw as LegacyExtra;
    const token = extra._meta?.progressToken;
    return {
      ...(extra.signal ? { signal: extra.signal } : {}),
      ...(token !== undefined && extra.sendNotification
        ? {
            progress: (n: number, message: string) =>
              void extra.sendNotification!({
                method: 'notifications/progress',
                params: { progressToken: token, progress: n, message },
              }).catch(() => undefined),
          }
        : {}),
    };
  });
}

interface ModernContext {
  mcpReq?: {
    signal?: AbortSignal;
    _meta?: { progressToken?: string | number };
    notify?: (n: { method: string; params: Record<string, unknown> }) => Promise<void>;
  };
}

/** A host over the 2.x SDK's McpServer (2026-07-28 requests; also its 2025 leg, unused here). */
export function modernToolHost(server: unknown): ToolHost {
  return hostOf(server, (raw) => {
    const req = (raw as ModernContext).mcpReq ?? {};
    const token = req._meta?.progressToken;
    return {
      ...(req.signal ? { signal: req.signal } : {}),
      ...(token !== undefined && req.notify
        ? {
            progress: (n: number, message: string) =>
              void req.notify!({ method: 'notifications/progress', params: { progressToken: token, progress: n, message } }).catch(
                () => undefined,
              ),
          }
        : {}),
    };
  });
}
