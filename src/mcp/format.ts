// How `svc mcp` shows messages to a model: compact text (who, where, when, what, and the ids to
// reply with) and the same facts as plain objects for `structuredContent`. Pure: no I/O here.

import type { Message, Part, ReactionSummary, Target } from '../protocol/types.js';

/** The agent `svc mcp` acts as. */
export interface Self {
  network_id: string;
  agent_id: string;
  /** `net:agent`, as in DM participant ids. */
  scoped: string;
  fqid: string;
  /** The server's URL as this agent reaches it, for file download links; absent: links are paths. */
  base_url?: string;
}

export function selfOf(networkId: string, agentId: string, baseUrl?: string): Self {
  return {
    network_id: networkId,
    agent_id: agentId,
    scoped: `${networkId}:${agentId}`,
    fqid: `svc://${networkId}/agents/${agentId}`,
    ...(baseUrl !== undefined ? { base_url: baseUrl.replace(/\/+$/, '') } : {}),
  };
}

/** A file a message references, with where to download it (GET, with this agent's token). */
export interface FileView {
  file_id: string;
  name: string;
  content_type: string;
  size: number;
  download_url: string;
}

/** The file parts of a message as tools list them. */
export function filesOf(parts: readonly Part[], self: Self): FileView[] {
  const out: FileView[] = [];
  for (const p of parts) {
    const f = p as Part & { file_id?: unknown; name?: unknown; content_type?: unknown; size?: unknown };
    if (p.kind !== 'file' || typeof f.file_id !== 'string') continue;
    out.push({
      file_id: f.file_id,
      name: typeof f.name === 'string' ? f.name : f.file_id,
      content_type: typeof f.content_type === 'string' ? f.content_type : 'application/octet-stream',
      size: typeof f.size === 'number' ? f.size : 0,
      download_url: `${self.base_url ?? ''}/v1/files/${encodeURIComponent(f.file_id)}`,
    });
  }
  return out;
}

/** A conversation as tools name it: exactly one of room, thread or DM. */
export type Conversation =
  | { kind: 'room'; room_id: string }
  | { kind: 'thread'; room_id: string; thread_id: string }
  | { kind: 'dm'; dm_id: string; participant_ids: string[] };

/** One message as `structuredContent` carries it. */
export interface MessageView {
  id: string;
  conversation: Conversation;
  from: { type: string; id: string; network_id: string; name?: string };
  text: string;
  created_at: string;
  mentions: string[];
  /** Why it is in an inbox result: it mentions this agent, is a DM to it, or neither. */
  for_me: 'mention' | 'dm' | null;
  /** Emoji reactions, when it has any (#28). */
  reactions?: ReactionSummary[];
  /** When it was last edited and its version (#40), when it was edited. */
  edited_at?: string;
  version?: number;
  /** When it was deleted: a tombstone, with no text. */
  deleted_at?: string;
  /** The files it references (#41), each with its download URL. */
  files?: FileView[];
}

export function conversationOf(t: Target): Conversation {
  if (t.kind === 'room') return { kind: 'room', room_id: t.room_id };
  if (t.kind === 'thread') return { kind: 'thread', room_id: t.room_id, thread_id: t.thread_id };
  return { kind: 'dm', dm_id: t.dm_id, participant_ids: [...t.participant_ids] };
}

/** A stable key per conversation (`room:general`, `thread:t1`, `dm:dm_x`), for read markers. */
export function conversationKey(c: Conversation): string {
  return c.kind === 'room' ? `room:${c.room_id}` : c.kind === 'thread' ? `thread:${c.thread_id}` : `dm:${c.dm_id}`;
}

/** Whether a message is a DM to, or mentions, this agent (never its own messages). */
export function forMe(m: Message, self: Self): MessageView['for_me'] {
  if (isOwn(m, self)) return null;
  if (m.target.kind === 'dm' && m.target.participant_ids.includes(self.scoped)) return 'dm';
  if (m.mentions.includes(self.fqid)) return 'mention';
  return null;
}

export function isOwn(m: Message, self: Self): boolean {
  return m.from.type === 'agent' && m.from.id === self.agent_id && m.from.network_id === self.network_id;
}

/** The text of a message: text parts as they are, other parts as a short bracketed note. */
export function textOf(parts: readonly Part[]): string {
  return parts
    .map((p) => {
      if (p.kind === 'text') return p.text ?? '';
      const f = p as Part & { file_id?: unknown; name?: unknown; size?: unknown; content_type?: unknown };
      if (p.kind === 'file' && typeof f.file_id === 'string')
        return `[file: ${String(f.name ?? f.file_id)} (${String(f.content_type ?? 'application/octet-stream')}, ${String(f.size ?? '?')} bytes) ${f.file_id}]`;
      const name = p.filename ?? p.url;
      if (p.kind === 'data') return `[data${p.data ? ` ${JSON.stringify(p.data)}` : ''}]`;
      return `[${p.kind}${name ? `: ${name}` : ''}${p.media_type ? ` (${p.media_type})` : ''}]`;
    })
    .join('\n');
}

export function messageView(m: Message, self: Self): MessageView {
  const files = m.deleted_at === undefined ? filesOf(m.parts, self) : [];
  return {
    id: m.id,
    conversation: conversationOf(m.target),
    from: { type: m.from.type, id: m.from.id, network_id: m.from.network_id, ...(m.from.name ? { name: m.from.name } : {}) },
    text: textOf(m.parts),
    created_at: m.created_at,
    mentions: [...m.mentions],
    for_me: forMe(m, self),
    ...(m.reactions?.length ? { reactions: m.reactions } : {}),
    ...(m.edited_at !== undefined ? { edited_at: m.edited_at, version: m.version ?? 1 } : {}),
    ...(m.deleted_at !== undefined ? { deleted_at: m.deleted_at } : {}),
    ...(files.length > 0 ? { files } : {}),
  };
}

/** Another agent as this network names it: bare when local, `net:id` when remote. */
function who(net: string, scopedOrBare: string): string {
  return scopedOrBare.startsWith(`${net}:`) ? scopedOrBare.slice(net.length + 1) : scopedOrBare;
}

/** `room general`, `thread t1 (room general)`, `DM dm_x with alpha, beta`. */
export function conversationLabel(c: Conversation, self: Self): string {
  if (c.kind === 'room') return `room ${c.room_id}`;
  if (c.kind === 'thread') return `thread ${c.thread_id} (room ${c.room_id})`;
  const others = c.participant_ids.filter((p) => p !== self.scoped).map((p) => who(self.network_id, p));
  return `DM ${c.dm_id} with ${others.length > 0 ? others.join(', ') : 'yourself'}`;
}

/** The send_message arguments that answer in a conversation. */
export function replyHint(c: Conversation): string {
  if (c.kind === 'room') return `send_message room_id="${c.room_id}"`;
  if (c.kind === 'thread') return `send_message thread_id="${c.thread_id}"`;
  return `send_message dm_id="${c.dm_id}"`;
}

/** `2026-11-24 03:41:07Z`: seconds are enough for a reader, and shorter than ISO with millis. */
export function shortTime(iso: string): string {
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)/.exec(iso);
  return m ? `${m[1]} ${m[2]}Z` : iso;
}

function sender(v: MessageView, self: Self): string {
  const id = v.from.network_id === self.network_id ? v.from.id : `${v.from.network_id}:${v.from.id}`;
  const name = v.from.name && v.from.name !== v.from.id ? ` (${v.from.name})` : '';
  const kind = v.from.type === 'agent' ? '' : ` [${v.from.type}]`;
  const you = v.from.type === 'agent' && v.from.id === self.agent_id && v.from.network_id === self.network_id ? ' (you)' : '';
  return `${id}${name}${kind}${you}`;
}

/** One message: a header line with id, time, sender and why it is here, then its text indented. */
export function messageLines(v: MessageView, self: Self): string[] {
  const tag = v.for_me === 'mention' ? ' · mentions you' : '';
  const edited = v.edited_at !== undefined && v.deleted_at === undefined ? ` · edited ${shortTime(v.edited_at)}` : '';
  const head = `- ${v.id} · ${shortTime(v.created_at)} · ${sender(v, self)}${tag}${edited}:`;
  const body =
    v.deleted_at !== undefined
      ? [`  (deleted ${shortTime(v.deleted_at)})`]
      : v.text === ''
        ? ['  (no text)']
        : v.text.split('\n').map((l) => `  ${l}`);
  const reacted = v.reactions?.length
    ? [
        `  reactions: ${v.reactions.map((r) => `${r.emoji} ${r.count} (${r.by.map((b) => who(self.network_id, b)).join(', ')})`).join(' · ')}`,
      ]
    : [];
  const files = (v.files ?? []).map((f) => `  file ${f.name} (${f.content_type}, ${f.size} bytes): ${f.download_url}`);
  return [head, ...body, ...files, ...reacted];
}

/**
 * Messages grouped by conversation, in the order each conversation first appears, each group headed
 * by where it is and how to reply there.
 */
export function groupedLines(views: readonly MessageView[], self: Self): string[] {
  const groups = new Map<string, MessageView[]>();
  for (const v of views) {
    const k = conversationKey(v.conversation);
    const g = groups.get(k);
    if (g) g.push(v);
    else groups.set(k, [v]);
  }
  const out: string[] = [];
  for (const g of groups.values()) {
    const c = g[0]!.conversation;
    if (out.length > 0) out.push('');
    out.push(`${conversationLabel(c, self)} · reply with ${replyHint(c)}`);
    for (const v of g) out.push(...messageLines(v, self));
  }
  return out;
}
