// A mention of a remote A2A agent, or a DM to it, as a SendMessage; its answer posted back as its
// message where the wake came from (the room, thread or DM), mentioning the sender in a room so the
// sender is woken as by any reply. One A2A context per conversation: the contextId the agent gave
// in its first answer is kept in the store (kind `a2a_context`) and sent with every later message of
// that room, thread or DM. A down agent is not called: the sender gets a notice at once.

import { createHash } from 'node:crypto';
import type { A2aAgentConfig } from '../../config/a2a-agents.js';
import type { NetworkContext } from '../../network/context.js';
import { sendMessage } from '../../network/messages.js';
import type { Message, Part, SendRequest, Target } from '../../protocol/types.js';
import type { Health } from './health.js';
import { reasonOf } from './health.js';
import { a2aPrincipal } from './members.js';

const CONTEXT_KIND = 'a2a_context';

/** What handling one wake needs from the feature. */
export interface DispatchDeps {
  ctx: NetworkContext;
  /** svc's own base URL, for file parts sent as links (undefined before listen). */
  filesBase(): string | undefined;
  /** The remote agent's SDK side, loaded on first use. */
  remote(a: A2aAgentConfig): Promise<{
    send(m: import('@a2a-js/sdk').Message): Promise<import('@a2a-js/sdk').Message | import('@a2a-js/sdk').Task>;
  }>;
  health(id: string): Health;
  /** A call succeeded or failed (it counts toward the agent's status as a card check does). */
  called(id: string, error?: unknown): void;
  counted(id: string, outcome: 'replied' | 'failed' | 'down'): void;
}

/** Where the reply goes: the wake's own conversation. */
function replyTarget(t: Target): SendRequest['target'] {
  if (t.kind === 'thread') return { kind: 'thread', room_id: t.room_id, thread_id: t.thread_id };
  if (t.kind === 'dm') return { kind: 'dm', dm_id: t.dm_id };
  return { kind: 'room', room_id: t.room_id };
}

/** The reply's id, derived from the agent and the message: two instances answering one wake store one reply. */
const replyId = (agent: string, messageId: string, what: string): string =>
  `a2a_${createHash('sha256').update(`${agent}\n${messageId}\n${what}`).digest('hex').slice(0, 32)}`;

/** Posts as the remote agent, in the wake's conversation, mentioning the sender outside a DM. */
async function post(deps: DispatchDeps, a: A2aAgentConfig, m: Message, what: string, parts: Part[]): Promise<void> {
  const mention = m.target.kind !== 'dm' && m.from.type === 'agent' ? [m.from.fqid] : [];
  await sendMessage(deps.ctx, a2aPrincipal(a.id), {
    id: replyId(a.id, m.id, what),
    target: replyTarget(m.target),
    from: { type: 'agent', id: a.id, ...(a.name ? { name: a.name } : {}) },
    parts,
    ...(mention.length > 0 ? { mentions: mention } : {}),
  });
}

/** The notice a sender gets instead of a reply. `data.a2a` says why, for agents that read parts. */
function notice(a: A2aAgentConfig, m: Message, status: 'down' | 'failed', why: string): Part[] {
  const text =
    status === 'down'
      ? `${a.id} is unavailable (A2A agent down: ${why}); your message ${m.id} was not delivered to it.`
      : `${a.id} could not answer (A2A call failed: ${why}); your message ${m.id} was not delivered to it.`;
  return [
    { kind: 'text', text },
    { kind: 'data', data: { a2a: { agent: a.id, status, message_id: m.id, reason: why } } },
  ];
}

/** Handles one wake of agent `a` by message `m`. Never throws: failures become notices and logs. */
export async function dispatch(deps: DispatchDeps, a: A2aAgentConfig, m: Message): Promise<void> {
  const { ctx } = deps;
  try {
    const h = deps.health(a.id);
    if (h.status === 'down') {
      deps.counted(a.id, 'down');
      await post(deps, a, m, 'notice', notice(a, m, 'down', `${h.failures} failures since ${h.downSince}, last: ${h.lastError}`));
      return;
    }
    const { outgoingMessage, toA2aParts, replyOf, conversationOf } = await import('./parts.js');
    const conv = conversationOf(m.target);
    const kvId = `${a.id}\n${conv}`;
    const known = await ctx.store.kv.get(CONTEXT_KIND, kvId);
    const parts = toA2aParts(m.parts, deps.filesBase());
    const meta = { svc: { network_id: ctx.config.network.id, message_id: m.id, from: m.from.fqid, conversation: conv } };
    let answer: Awaited<ReturnType<Awaited<ReturnType<DispatchDeps['remote']>>['send']>>;
    try {
      const remote = await deps.remote(a);
      answer = await remote.send(outgoingMessage(m.id, known?.value ?? '', parts, meta));
      deps.called(a.id);
    } catch (err) {
      deps.called(a.id, err);
      deps.counted(a.id, 'failed');
      ctx.log('warn', 'A2A call failed', { agent: a.id, message: m.id, error: reasonOf(err) });
      await post(deps, a, m, 'notice', notice(a, m, 'failed', reasonOf(err)));
      return;
    }
    if (answer.contextId && answer.contextId !== known?.value)
      await ctx.store.kv.put({ kind: CONTEXT_KIND, id: kvId, value: answer.contextId });
    const reply = replyOf(answer);
    const out: Part[] = [];
    if (reply.state) out.push({ kind: 'text', text: `(A2A task ${reply.state})` });
    for (const p of reply.parts) {
      if ('part' in p) out.push(p.part);
      else out.push(await stored(deps, a, p));
    }
    if (out.length === 0) out.push({ kind: 'text', text: '(the A2A agent answered with no content)' });
    deps.counted(a.id, 'replied');
    await post(deps, a, m, 'reply', out);
  } catch (err) {
    ctx.log('warn', 'A2A reply could not be posted', { agent: a.id, message: m.id, error: reasonOf(err) });
  }
}

/** A file the agent sent as bytes, stored as an svc file (a text note when the files feature is off). */
async function stored(deps: DispatchDeps, a: A2aAgentConfig, p: { bytes: Buffer; name: string; mediaType: string }): Promise<Part> {
  const files = deps.ctx.extensions.files;
  if (!files) return { kind: 'text', text: `(a file ${p.name} of ${p.bytes.length} bytes was left out: this server keeps no files)` };
  const up = await files.upload(a2aPrincipal(a.id), p.bytes, { name: p.name, contentType: p.mediaType });
  return { kind: 'file', file_id: up.file_id };
}
