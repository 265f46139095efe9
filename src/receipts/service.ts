// Receipts as the network's rules see them: who may read a message's receipts (its sender and
// admins, among those who may see the message), whom a message was addressed to, and the marks
// that reads make.

import { forbidden } from '../errors.js';
import { mayAssertAgent, type Principal } from '../auth/principal.js';
import { canSendHuman } from '../auth/senders.js';
import { visibleMessage } from '../network/access.js';
import type { NetworkContext } from '../network/context.js';
import type { Message, MessageReceipts, Reader } from '../protocol/types.js';
import { receiptsPart } from '../store/receipts/part.js';
import { convKeyOf, type MessageRecord } from '../store/types.js';
import { readingAs } from '../network/reached.js';
import { readerKey } from '../store/receipts/records.js';
import type { ReceiptMarks } from './marks.js';
import { receiptsOf } from './view.js';

/** Local agent ids stay bare; another network's are scoped (`<network>:<id>`). */
function agentReader(net: string, member: string): string {
  const prefix = `${net}:`;
  return `agent:${member.startsWith(prefix) ? member.slice(prefix.length) : member}`;
}

function senderKey(net: string, m: Message): string {
  const local = m.from.network_id === undefined || m.from.network_id === net;
  if (m.from.type === 'agent') return `agent:${local ? m.from.id : `${m.from.network_id}:${m.from.id}`}`;
  return `human:${m.from.id}`;
}

const isAdmin = (p: Principal) => p.kind === 'trusted' || (p.kind === 'static' && p.scopes.has('admin'));

/** Whether `p` may act as the message's sender. */
function isSender(ctx: NetworkContext, p: Principal, m: Message): boolean {
  if (p.kind === 'anonymous') return false;
  const net = ctx.config.network.id;
  if (m.from.network_id !== undefined && m.from.network_id !== net) return false;
  if (m.from.type === 'agent') return mayAssertAgent(p, m.from.id);
  return p.kind !== 'agent' && canSendHuman(ctx.config.server.human_ingress, p);
}

/** The message if `p` may see it (else what a missing id gets: network/access.ts), and whom it was addressed to. */
async function addressedMessage(ctx: NetworkContext, p: Principal, id: string): Promise<{ rec: MessageRecord; expected: string[] }> {
  const { rec, room } = await visibleMessage(ctx, p, id);
  const t = rec.message.target;
  const net = ctx.config.network.id;
  const to = t.kind === 'dm' ? t.participant_ids : (room?.members ?? []);
  return { rec, expected: to.map((m) => agentReader(net, m)) };
}

/** GET /v1/messages/{id}/receipts: for the sender and admins. */
export async function messageReceipts(ctx: NetworkContext, p: Principal, id: string): Promise<MessageReceipts> {
  const { rec, expected } = await addressedMessage(ctx, p, id);
  if (!isAdmin(p) && !isSender(ctx, p, rec.message)) throw forbidden('only the sender of a message and admins read its receipts');
  // A store opened without the receipts part (never with this feature running) has no records.
  const reads = ctx.store.part(receiptsPart);
  const [seqs, records] = await Promise.all([ctx.store.messageSeqs([id]), reads ? reads.list(rec.conv) : []]);
  const seq = seqs.get(id);
  const net = ctx.config.network.id;
  return { message_id: id, receipts: receiptsOf(seq ?? 0, expected, seq === undefined ? [] : records, senderKey(net, rec.message)) };
}

/** POST /v1/messages/{id}/read: marks one message read by the caller (or whom `as` names). */
export async function markMessageRead(
  ctx: NetworkContext,
  marks: ReceiptMarks,
  p: Principal,
  id: string,
  as: string | undefined,
): Promise<{ message_id: string; reader: { type: string; id: string } }> {
  const { rec } = await addressedMessage(ctx, p, id);
  const reader = readingAs(p, as, ctx.config.server.human_ingress);
  if (!reader) throw forbidden('this credential reads as nobody: use an agent token, or name whom it reads as with `as`');
  const range = await rangeOf(ctx, rec.conv, id, id);
  if (range) marks.mark(readerKey(reader), rec.conv, 'read', range[0], range[1], rec.message.target);
  return { message_id: id, reader };
}

/**
 * Marks a page of one conversation's history read by `reader`. A page is contiguous, so it covers
 * its oldest to its newest message.
 */
export async function noteRead(ctx: NetworkContext, marks: ReceiptMarks, reader: Reader, messages: readonly Message[]): Promise<void> {
  if (messages.length === 0) return;
  const conv = convKeyOf(messages[0]!.target);
  const range = await rangeOf(ctx, conv, messages[0]!.id, messages[messages.length - 1]!.id);
  if (range) marks.mark(readerKey(reader), conv, 'read', range[0], range[1], messages[0]!.target);
}

/**
 * The seqs a contiguous run of a conversation's messages covers: from just after the message before
 * the first (the conversation's other events and other conversations' events fall between its
 * messages) to the last. So reading on from where a reader stopped joins its earlier range.
 */
async function rangeOf(ctx: NetworkContext, conv: string, firstId: string, lastId: string): Promise<[number, number] | undefined> {
  const before = (await ctx.store.listMessages(conv, { limit: 1, before: firstId })).items[0]?.id;
  const seqs = await ctx.store.messageSeqs([...new Set([firstId, lastId, ...(before ? [before] : [])])]);
  const lo = seqs.get(firstId);
  const hi = seqs.get(lastId);
  if (lo === undefined || hi === undefined) return undefined;
  const prev = before === undefined ? 0 : (seqs.get(before) ?? lo - 1);
  return [Math.min(prev + 1, lo), Math.max(lo, hi)];
}
