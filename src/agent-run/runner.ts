// `svc agent run`: attaches as one agent and runs a command per wake. Runs are serialized per
// conversation and wakes that arrive during a run make up the next one. A wake is acknowledged only
// after its run finished and its reply is stored; the reply's id is derived from the wakes, so a
// re-run after a crash re-posts the same id and the server keeps one.

import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  attach,
  ClientError,
  conversationOf,
  sessionKeyOf,
  type AttachedEvent,
  type Attachment,
  type ReadyInfo,
  type SvcClient,
} from '../client/index.js';
import type { Message, Target } from '../protocol/types.js';
import { VERSION } from '../version.js';
import { formatDuration, wakes, type WakeFilter } from './options.js';
import { presetPlan, type PresetPlan, type Runtime } from './presets.js';
import { fetchWakeFiles, filesOf } from './files.js';
import { Launcher } from './launcher.js';
import type { ProcessResult, Running } from './process.js';
import { promptOf, replyIdOf, replyTarget, runEnv } from './prompt.js';
import { openRunState, type RunState } from './state.js';

export interface RunnerOptions {
  url: string;
  token?: string;
  agent: { id: string; name?: string };
  networkId: string;
  filter: Omit<WakeFilter, 'agent'>;
  reply: 'auto' | 'none';
  timeoutMs: number;
  /** Recent messages given as context. */
  context: number;
  /** COMMAND ARGS; with a runtime, extra arguments for it. */
  command: string[];
  runtime?: Runtime;
  stateDir: string;
  /** Keeps a token a first claim got; returns the file (default: a file in stateDir). */
  keepToken?: (token: string) => string;
  log: (line: string) => void;
  /** Each finished run (default: a line through `log`). */
  report?: (r: RunRecord) => void;
}

/** What one run did, for the log. */
export interface RunRecord {
  conversation: string;
  session_key: string;
  message_ids: string[];
  exit_code: number | null;
  signal?: string;
  timed_out: boolean;
  duration_ms: number;
  reply: 'posted' | 'empty' | 'none' | 'skipped' | 'refused' | 'failed' | 'already_answered';
  reply_id?: string;
  error?: string;
}

interface Conversation {
  running: boolean;
  pending: AttachedEvent[];
}

const RETRY_MAX_MS = 30_000;

export class AgentRunner {
  readonly #o: RunnerOptions;
  readonly #state: RunState;
  readonly #convs = new Map<string, Conversation>();
  readonly #running = new Set<Running>();
  readonly #launcher = new Launcher();
  #attachment: Attachment | undefined;
  #token: string | undefined;
  #stopping = false;
  #contextWarned = false;
  /** When the attachment last became READY (ms): messages older than this may be redeliveries. */
  #readySince = Number.POSITIVE_INFINITY;

  constructor(o: RunnerOptions) {
    this.#o = o;
    this.#token = o.token;
    this.#state = openRunState(o.stateDir);
  }

  /** Attaches; resolves at the first READY. */
  start(): Promise<ReadyInfo> {
    const o = this.#o;
    this.#attachment = attach({
      url: o.url,
      ...(o.token !== undefined ? { token: o.token } : {}),
      agent: o.agent,
      networkId: o.networkId,
      cursorStore: path.join(o.stateDir, 'cursor.json'),
      ackMode: 'manual',
      userAgent: `svc-agent-run/${VERSION} (pid ${process.pid})`,
      onEvent: (e) => this.#onEvent(e),
      // A first claim under open registration: the token is shown once, so it is kept before anything runs.
      onAgentToken: (token) => {
        let file = path.join(o.stateDir, 'agent-token');
        if (o.keepToken) file = o.keepToken(token);
        else this.#state.saveToken(token);
        this.#token = token;
        o.log(`registered ${o.agent.id}; its agent token is kept in ${file}`);
      },
      onStatus: (s) => {
        if (s.state === 'disconnected' && s.retryInMs > 0)
          o.log(`connection lost (${s.reason}); reconnecting in ${formatDuration(s.retryInMs)}`);
        else if (s.state === 'ready') {
          this.#readySince = Date.now();
          if (s.info.resumed) o.log(`reconnected; resuming after cursor ${s.info.cursor}`);
        }
      },
    });
    return this.#attachment.ready;
  }

  /** Settles when the attachment ends (rejects on a fatal error). */
  get done(): Promise<void> {
    return this.#attachment?.done ?? Promise.resolve();
  }

  /** Stops: running commands are stopped and their wakes come again at the next start. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#launcher.close();
    for (const r of this.#running) r.stop();
    await Promise.all([...this.#running].map((r) => r.done));
    await this.#attachment?.close();
  }

  #onEvent(e: AttachedEvent): void {
    const m = e.event.message;
    if (!m || !wakes(e, { ...this.#o.filter, agent: { network_id: this.#o.networkId, id: this.#o.agent.id } })) return e.ack();
    // Answered before a restart while the cursor could not move past it (another conversation was busy).
    if (this.#state.answered(m.id)) return e.ack();
    const key = conversationOf(m.target);
    let c = this.#convs.get(key);
    if (!c) this.#convs.set(key, (c = { running: false, pending: [] }));
    c.pending.push(e);
    if (!c.running) void this.#drain(key, c);
  }

  async #drain(key: string, c: Conversation): Promise<void> {
    c.running = true;
    while (c.pending.length > 0 && !this.#stopping) {
      const batch = c.pending.splice(0);
      try {
        await this.#run(batch);
      } catch (err) {
        this.#o.log(`run ${key}: ${(err as Error).message}`);
      }
    }
    c.running = false;
    if (c.pending.length === 0) this.#convs.delete(key);
  }

  async #run(batch: AttachedEvent[]): Promise<void> {
    const o = this.#o;
    const client = this.#attachment!.client();
    const msgs = batch.map((e) => e.event.message!);
    const target = msgs[0]!.target;
    const ids = msgs.map((m) => m.id);
    const sessionKey = sessionKeyOf(o.networkId, target);
    const replyId = replyIdOf(o.agent.id, ids);
    const rec: RunRecord = {
      conversation: conversationOf(target),
      session_key: sessionKey,
      message_ids: ids,
      exit_code: null,
      timed_out: false,
      duration_ms: 0,
      reply: 'none',
    };
    // A wake for a message older than the attachment's READY may be a redelivery of one answered
    // before a crash: its reply is looked for in the context first. A live wake cannot have been
    // answered, so its command starts first and the context is read while it starts (stdin waits
    // for the prompt): the read's request and the server's answer do not hold up the start.
    const live = msgs.every((m) => Date.parse(m.created_at) >= this.#readySince);
    let context: Promise<Message[]> | undefined;
    if (!live) {
      context = this.#recent(client, target);
      if ((await context).some((m) => m.id === replyId)) {
        // Its reply is stored already (a crash came between the reply and the bookkeeping).
        this.#finish(batch, { ...rec, reply: 'already_answered', reply_id: replyId }, replyId);
        return;
      }
    }

    const replyFile = path.join(tmpdir(), `svc-agent-run-${process.pid}-${replyId}.txt`);
    const plan: PresetPlan = o.runtime
      ? presetPlan(o.runtime, {
          sessionKey,
          extra: o.command,
          replyFile,
          ...(this.#state.session(sessionKey) ? { known: this.#state.session(sessionKey)! } : {}),
        })
      : { argv: o.command };
    const input = { networkId: o.networkId, agentId: o.agent.id, wakes: msgs };
    const token = this.#token;
    // The wakes' files, in a private folder that lives as long as the command.
    const files = await fetchWakeFiles(client, filesOf(msgs), (l) => o.log(`run ${sessionKey}: ${l}`));
    let res: ProcessResult;
    try {
      const running = this.#launcher.run(plan.argv, {
        // Read once the command has been handed over (this callback runs after `run` returns).
        input: Promise.resolve()
          .then(() => context ?? this.#recent(client, target))
          .then((recent) => promptOf({ ...input, recent }, files.paths)),
        env: { ...runEnv(input, { url: o.url, replyId, ...(token !== undefined ? { token } : {}) }), ...files.env },
        timeoutMs: o.timeoutMs,
      });
      this.#running.add(running);
      try {
        res = await running.done;
      } finally {
        this.#running.delete(running);
      }
    } finally {
      files.remove();
    }
    // Stopped by a shutdown: not finished, so not acknowledged; the wakes come again next start.
    if (this.#stopping && !res.timedOut) return;
    rec.exit_code = res.code ?? null;
    if (res.signal) rec.signal = res.signal;
    rec.timed_out = res.timedOut;
    rec.duration_ms = res.durationMs;

    let text = res.stdout;
    if (plan.replyFile) {
      try {
        text = readFileSync(plan.replyFile, 'utf8');
      } catch {
        text = '';
      }
      rmSync(plan.replyFile, { force: true });
    }
    if (res.code === 0 && plan.sessionFrom) {
      const sid = plan.sessionFrom(res.stdout);
      if (sid) this.#state.setSession(sessionKey, sid);
    }
    if (res.spawnError) rec.error = `cannot start ${plan.argv[0]}: ${res.spawnError}`;
    else if (res.timedOut) rec.error = `timed out after ${formatDuration(o.timeoutMs)}: the command was killed`;
    else if (res.code !== 0) rec.error = lastLine(res.stderr) ?? `the command ended with ${res.signal ?? `exit code ${String(res.code)}`}`;

    let posted: string | undefined;
    if (o.reply === 'none') rec.reply = 'none';
    else if (res.code !== 0) rec.reply = 'skipped';
    else if (text.trim() === '') rec.reply = 'empty';
    else {
      const outcome = await this.#post(client, { id: replyId, target: replyTarget(target), text: text.trim() });
      if (outcome === 'stopping') return;
      rec.reply = outcome.reply;
      if (outcome.error) rec.error = outcome.error;
      if (outcome.reply === 'posted') {
        posted = replyId;
        rec.reply_id = replyId;
      }
    }
    this.#finish(batch, rec, posted);
  }

  /** Bookkeeping, then the ACKs: answered first, so a crash in between never re-runs a stored reply. */
  #finish(batch: AttachedEvent[], rec: RunRecord, replyId: string | undefined): void {
    this.#state.markAnswered(rec.message_ids, replyId);
    for (const e of batch) e.ack();
    if (this.#o.report) this.#o.report(rec);
    else this.#o.log(describeRun(rec));
  }

  async #recent(client: SvcClient, t: Target): Promise<Message[]> {
    const q = { limit: this.#o.context };
    try {
      const page =
        t.kind === 'room'
          ? await client.roomMessages(t.room_id, q)
          : t.kind === 'thread'
            ? await client.threadMessages(t.thread_id, q)
            : await client.dmMessages(t.dm_id, q);
      return page.messages;
    } catch (err) {
      if (!this.#contextWarned)
        this.#o.log(`cannot read the conversation for context (${(err as Error).message}); runs get the new messages only`);
      this.#contextWarned = true;
      return [];
    }
  }

  /** Posts the reply; retries what may succeed later (the id makes retries safe). */
  async #post(
    client: SvcClient,
    r: { id: string; target: ReturnType<typeof replyTarget>; text: string },
  ): Promise<{ reply: RunRecord['reply']; error?: string } | 'stopping'> {
    let wait = 1000;
    for (;;) {
      try {
        await client.send({
          id: r.id,
          target: r.target,
          from: { type: 'agent', id: this.#o.agent.id },
          parts: [{ kind: 'text', text: r.text }],
        });
        return { reply: 'posted' };
      } catch (err) {
        if (!(err instanceof ClientError)) throw err;
        if (err.code === 'loop_detected') return { reply: 'refused', error: `the loop guard refused the reply: ${err.message}` };
        const transient = err.status === undefined || err.status >= 500 || err.status === 429;
        if (!transient) return { reply: 'failed', error: err.message };
        if (this.#stopping) return 'stopping';
        this.#o.log(`posting the reply ${r.id} failed (${err.message}); retrying in ${formatDuration(wait)}`);
        await sleep(wait);
        if (this.#stopping) return 'stopping';
        wait = Math.min(wait * 2, RETRY_MAX_MS);
      }
    }
  }
}

function lastLine(s: string): string | undefined {
  const l = s.trim().split('\n').pop()?.trim();
  return l ? `stderr: ${l.slice(0, 200)}` : undefined;
}

/** The human log line of a run: conversation, wakes, exit, duration, reply. */
export function describeRun(r: RunRecord): string {
  const wakesText = `${r.message_ids.length} wake${r.message_ids.length === 1 ? '' : 's'}: ${r.message_ids.join(', ')}`;
  if (r.reply === 'already_answered') return `run ${r.conversation} (${wakesText}) skipped: its reply ${r.reply_id} is already stored`;
  const exit = r.timed_out ? 'timed out' : r.exit_code !== null ? `exit ${r.exit_code}` : `killed by ${r.signal ?? 'a signal'}`;
  const reply =
    r.reply === 'posted'
      ? `replied ${r.reply_id}`
      : r.reply === 'empty'
        ? 'no reply (empty output)'
        : r.reply === 'none'
          ? 'no reply (--reply none)'
          : r.reply === 'skipped'
            ? 'no reply'
            : `reply ${r.reply}`;
  return `run ${r.conversation} (${wakesText}) ${exit} in ${formatDuration(r.duration_ms)}; ${reply}${r.error ? `; ${r.error}` : ''}`;
}
