// What a feature may add to the command line, as src/feature.ts says what it adds to the server: a
// command of `svc`, declared with what the CLI lends it, and sections of the file `svc apply`
// carries. A feature folder stands below the CLI and imports none of it; src/cli/program.ts adds
// the commands src/feature-commands.ts lists and hands each the kit below. The same types describe
// the CLI's own (src/cli/format.ts, with-client.ts).

import type { ChalkInstance } from 'chalk';
import type { Command } from 'commander';
import type { SvcClient } from './client/svc-client.js';
import type { Config } from './config/types.js';
import type { AgentSummary, ApplyRequest, ApplyResponse, SendRequest } from './protocol/types.js';

/** Where a command writes (the CLI's Io: colour off when not a TTY or NO_COLOR is set). */
export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
  color: ChalkInstance;
  env: NodeJS.ProcessEnv;
}

/** Flags every client command takes. */
export interface ClientFlags {
  url?: string;
  token?: string;
  config?: string;
  json?: boolean;
  debug?: boolean;
}

/** Where a client command went: the config file it read and where the server's URL came from. */
export interface CommandTarget {
  /** Absolute config path, and whether it exists. */
  configFile: string;
  configExists: boolean;
  /** Where the URL came from, for messages: `runtime` is the live runtime file of this config's server. */
  urlSource: '--url' | 'SVC_URL' | 'runtime' | 'config' | 'default';
}

/** One column of a table a command prints. */
export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Colour for a cell (applied after padding). */
  style?: (text: string, row: T) => string;
}

/** What a command's work uses, loaded only when it runs (so `svc --help` stays quick). */
export interface CommandWork {
  /**
   * Runs `work` with a client for the resolved target and returns its exit code; a known failure
   * becomes one line on stderr and its code. With `agent`, the command acts as that agent (its kept
   * token), or as the agent an agent token names when `infer`; `agentId` is whom it acts as.
   */
  withClient(
    name: string,
    flags: ClientFlags,
    work: (client: SvcClient, target: CommandTarget, agentId?: string) => Promise<number>,
    agent?: { agent: string | undefined; flag: '--as'; infer?: boolean },
  ): Promise<number>;
  /** JSON for --json, invisible characters escaped. */
  json(v: unknown): string;
  /** Rows as aligned lines, the header first. */
  table<T>(c: ChalkInstance, rows: readonly T[], cols: readonly Column<T>[]): string[];
  /** Whom a write is from, by `svc send`'s rules (--as, --human, else $USER). */
  sender(f: { as?: string; human?: string; token?: string }): SendRequest['from'];
  /** Exit codes: 0 success, 1 failure, 2 usage error (docs/cli.md). */
  readonly exit: { readonly ok: 0; readonly failure: 1; readonly usage: 2 };
}

/** What the CLI lends a command a feature declares. */
export interface CommandKit {
  readonly io: CommandIo;
  /** Runs a command's work and records its exit code. */
  run(p: Promise<number>): Promise<void>;
  /** The program's --debug (`svc --debug <command>`). */
  debug(): boolean;
  /** Adds --url, --token, --config (and --json, described by `jsonHelp`). */
  connection(cmd: Command, jsonHelp?: string): Command;
  /** The examples under a command's help. */
  example(...lines: string[]): string;
  /** Parses a whole number of 1 or more (an option's value). */
  positiveInt(value: string): number;
  /** Loads what the work uses. */
  work(): Promise<CommandWork>;
}

/** A command a feature adds to `svc`. */
export interface FeatureCommand {
  declare(program: Command, kit: CommandKit): void;
  /** The command it follows in `svc --help` (default: after every other). */
  after?: string;
}

type AppliedChange = NonNullable<ApplyResponse['changes']>[number];

/**
 * A change `svc apply` shows: what POST /v1/apply answered, or in a dry run what it would be;
 * `unknown` when the caller's view cannot tell, `refused` when the server would answer 409.
 */
export type PlannedChange = Omit<AppliedChange, 'action'> & { action: AppliedChange['action'] | 'unknown' | 'refused'; details?: string[] };

/** Sections of the file `svc apply` carries that a feature keeps (its `Feature.apply` applies them on the server). */
export interface ApplySection {
  /** Their top-level keys, which a file of declarations only may have too. */
  readonly keys: readonly string[];
  /** What they declare, in words for the command's help (plural nouns, one a key). */
  readonly what: readonly string[];
  /** Loads the work, only when `svc apply` runs. */
  work(): Promise<ApplySectionWork>;
}

/** What `svc apply` asks of a feature's sections. */
export interface ApplySectionWork {
  /** Their part of the request, from the file read as a config. */
  request(config: Config): Partial<ApplyRequest>;
  /** A dry run's plan of that part, as far as `client` may see (`agents`: the agents it listed). */
  plan(client: SvcClient, req: ApplyRequest, agents: readonly AgentSummary[]): Promise<PlannedChange[]>;
}
