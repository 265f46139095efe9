// What the network's rules need: the current config (reloadable), the store, the broker.

import type { Readable } from 'node:stream';
import type { RelayedEvent } from './relayed-event.js';
import type { Config } from '../config/types.js';
import type { Broker } from '../events/broker.js';
import type { Logger } from '../log.js';
import type { Message, Part, ServiceEvent, Target, Warning } from '../protocol/types.js';
import { newId } from '../protocol/ids.js';
import type { RoomRecord, Store, WriteOp, WriteResult } from '../store/types.js';
import type { Principal } from '../auth/principal.js';
import type { ApplyRequest, ApplyResponse, SendRequest } from '../protocol/types.js';
import { reachedBy, type Reached } from './reached.js';
import type { Deliveries } from './delivery.js';
import type { FileUploads, PeerFiles } from './file-uploads.js';

/** What a feature adds to a message's write: its parts as stored, and intents written in the same batch. */
export interface SendBatch {
  /** The message's parts as they are stored (a feature fills fields from what it keeps). */
  parts?: Part[];
  /** Written atomically with the message: a refusal of one refuses the message. */
  ops?: WriteOp[];
}

/** The message a send or an edit is about to write, as `SendExtension.batch` sees it. */
export interface OutgoingMessage {
  id: string;
  conv: string;
  target: Target;
  parts: readonly Part[];
  /** Who sends or edits it. */
  principal: Principal;
  /** A message relayed from a paired network: that network (checked by the pairings before the batch). */
  origin?: { network_id: string };
}

/** Decisions and observations around one message send, contributed by a feature. */
export interface SendExtension {
  /**
   * Runs while a send or an edit is decided, before anything is written: gives the parts to store
   * and intents to write in the message's batch (the files feature's references), or nothing.
   * Throws AppError to refuse. It may run more than once for one send (a decision re-run on fresh reads).
   */
  batch?: (m: OutgoingMessage) => Promise<SendBatch | undefined>;
  /** Decides a message before it is stored (the loop guard); throws AppError to refuse. */
  check?: (conv: string, m: Message) => void;
  /** Observes a message once it is stored. */
  stored?: (conv: string, m: Message) => void;
}

/** Decides an inbound message from a remote-origin sender; throws AppError to refuse. */
export type RemoteSenderCheck = (p: Principal, req: SendRequest, target: { room?: RoomRecord }) => void;

/**
 * What one feature at most provides to the network's rules, by name: the app puts each into
 * `ctx.extensions` as its feature gives it (`Feature.provides`) and refuses two features providing
 * the same. A lower layer reaches such a feature only through it, and does without when it is absent.
 * A feature may declare its entry here from its own folder (`declare module`, next to the value it
 * provides), so this list need not know it.
 */
export interface Provided {
  /** Per-agent delivery state (network/delivery.ts): absent when the delivery feature is not running. */
  readonly delivery: Deliveries;
  /** Uploads in process (network/file-uploads.ts): absent when the files feature is not running. */
  readonly files: FileUploads;
  /** Uploaded files' bytes by hash (the files feature's blob store; the export's `with_files`): absent without the feature. */
  readonly fileBytes: { read(sha256: string, range?: { start: number; end: number }): Promise<Readable | undefined> };
  /** Files of paired networks fetched over their pairing (network/file-uploads.ts): absent without the pairings feature. */
  readonly peerFiles: PeerFiles;
}

/** What the features contribute to the network's rules, combined by the app (src/app.ts). */
export interface Extensions extends Partial<Provided> {
  readonly send: readonly SendExtension[];
  /** At most one feature decides remote senders (the pairings); without one they are refused. */
  readonly checkRemoteSender?: RemoteSenderCheck;
  /** What reached whom, told to the features that keep track of it (network/reached.ts). */
  readonly reached: Reached;
  /** Observers of the latency of each durable write (metrics). */
  readonly observeWrite: readonly ((seconds: number) => void)[];
  /** Operator warnings (pairing compatibility, ...). */
  readonly warnings: readonly (() => Warning[])[];
  /** Declarations `svc apply` carries beyond rooms and agents, each the part of the feature that keeps them (hooks, remote A2A agents). */
  readonly apply?: readonly ApplyPart[];
  /** Agent ids features name as their own (inbound hook senders): self-registration keeps off them. */
  readonly reservedAgents?: readonly (() => readonly ReservedAgent[])[];
  /** Events beyond messages that pairings repeat on their peer, each declared by the feature that owns it. */
  readonly relayed?: readonly RelayedEvent[];
  /** What features add to each page of messages the reads return (history, search). */
  readonly messages?: readonly AddToMessages[];
}

/** Runs every feature's `batch` over an outgoing message, in feature order: the parts to store and the intents to add. */
export async function batchOf(ctx: NetworkContext, m: OutgoingMessage): Promise<{ parts: readonly Part[]; ops: WriteOp[] }> {
  let parts = m.parts;
  const ops: WriteOp[] = [];
  for (const h of ctx.extensions.send) {
    if (!h.batch) continue;
    const b = await h.batch({ ...m, parts });
    if (b?.parts) parts = b.parts;
    if (b?.ops) ops.push(...b.ops);
  }
  return { parts, ops };
}

/** Adds what a feature keeps about messages to a page of them: copies where it adds, the same objects elsewhere. */
export type AddToMessages = <M extends Message>(messages: readonly M[]) => Promise<M[]>;

/** A page of messages as the reads return it, with what every feature adds. */
export async function withAdditions<M extends Message>(ctx: NetworkContext, messages: readonly M[]): Promise<M[]> {
  let out = [...messages];
  for (const add of ctx.extensions.messages ?? []) out = await add(out);
  return out;
}

/** An agent id a feature names (network/reserved-agents.ts). */
export interface ReservedAgent {
  id: string;
  /** Where it is named, in words shown to whoever tries to claim it (nothing private). */
  namedAs: string;
}

/** A feature's part of POST /v1/apply. */
export interface ApplyPart {
  /** Refuses a bad declaration (an AppError naming its field under `body.`) before anything is applied. */
  check(req: ApplyRequest): Promise<void>;
  /** Applies the declarations `check` accepted; returns what changed. */
  apply(req: ApplyRequest): Promise<NonNullable<ApplyResponse['changes']>>;
}

export const NO_EXTENSIONS: Extensions = { send: [], reached: reachedBy([]), observeWrite: [], warnings: [] };

export interface NetworkContext {
  /** The current config; replaced on reload. */
  readonly config: Config;
  readonly store: Store;
  readonly broker: Broker;
  readonly log: Logger;
  readonly version: string;
  /** Warnings found while loading the config. */
  readonly configWarnings: Warning[];
  /** The network's unique id kept in its store (uid.ts); absent in a context built without starting an app. */
  readonly uid?: string;
  readonly extensions: Extensions;
}

let nowMs = -1;
let nowIso = '';
/** The current time as an ISO string (formatted once per millisecond: every send stamps it twice). */
export const now = (): string => {
  const ms = Date.now();
  if (ms !== nowMs) {
    nowMs = ms;
    nowIso = new Date(ms).toISOString();
  }
  return nowIso;
};

/** A new event envelope of this network. */
export function newEvent(ctx: NetworkContext, type: ServiceEvent['type'], fields: Partial<ServiceEvent> = {}): ServiceEvent {
  return { id: newId('evt'), type, network_id: ctx.config.network.id, created_at: now(), ...fields };
}

/**
 * Writes a batch of intents durably. Its events reach live delivery through the store's feed (as
 * everyone else's writes do), before this resolves.
 */
export async function commit(ctx: NetworkContext, ops: WriteOp[]): Promise<WriteResult> {
  const started = performance.now();
  const result = await ctx.store.write(ops);
  const seconds = (performance.now() - started) / 1000;
  for (const o of ctx.extensions.observeWrite) o(seconds);
  return result;
}
