// svc tail: follows /v1/events/stream, one line per event (or one JSON envelope per line with
// --json), filtered by --room and --type; reconnects after a drop and resumes with Last-Event-ID.

import type { Message, ServiceEvent, Target } from '../../../protocol/types.js';
import { escapeInvisible, oneLine } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { UsageError } from '../../target.js';
import { anonymousHint, withClient, type ClientFlags } from '../../with-client.js';
import { splitList } from '../../options.js';

export interface TailFlags extends ClientFlags {
  /** Act as this agent: its kept token is used in place of the config's operator token. */
  as?: string;
  room?: string[];
  type?: string[];
  /** Resume after this event id. */
  since?: string;
  /** Exit after this many matching events. */
  count?: number;
}

export interface EventFilter {
  rooms: string[];
  /** Exact types, or prefixes written `message.*`. */
  types: string[];
}

/** The room an event is about, if any. */
export function roomOf(e: ServiceEvent): string | undefined {
  const t = e.message?.target ?? e.agent?.target;
  if (t && t.kind !== 'dm') return t.room_id;
  return e.room?.id ?? e.thread?.room_id ?? e.room_id;
}

/** Whether an event passes the filters; a replay gap always does (it says events were missed). */
export function matches(e: ServiceEvent, f: EventFilter): boolean {
  if (e.type === 'stream.replay_gap') return true;
  if (f.types.length > 0 && !f.types.some((t) => (t.endsWith('*') ? e.type.startsWith(t.slice(0, -1)) : e.type === t))) return false;
  if (f.rooms.length > 0) {
    const room = roomOf(e);
    if (room === undefined || !f.rooms.includes(room)) return false;
  }
  return true;
}

function where(t: Target | undefined): string {
  if (!t) return '';
  if (t.kind === 'room') return `#${t.room_id}`;
  if (t.kind === 'thread') return `#${t.room_id}/${t.thread_id}`;
  return `dm:${t.participant_ids.join(',') || t.dm_id}`;
}

const textOf = (m: Message): string =>
  m.parts
    .map((p) => (p.kind === 'text' ? (p.text ?? '') : `[${p.kind}${p.filename ? ` ${p.filename}` : p.url ? ` ${p.url}` : ''}]`))
    .join(' ');

const fromOf = (m: Message): string =>
  m.from.network_id && m.from.network_id !== m.network_id ? `${m.from.network_id}:${m.from.id}` : m.from.id;

/** What an event says, in a few words (without its time and type). */
export function describeEvent(e: ServiceEvent): string {
  switch (e.type) {
    case 'message.created': {
      const m = e.message;
      return m ? `${where(m.target)} ${fromOf(m)}: ${textOf(m)}` : '';
    }
    // The message as it is now; who changed it is not on the event (its sender, or an operator).
    case 'message.edited': {
      const m = e.message;
      return m ? `${where(m.target)} ${fromOf(m)}: ${textOf(m)} (${m.id} edited, version ${m.version ?? 1})` : '';
    }
    case 'message.deleted': {
      const m = e.message;
      return m ? `${where(m.target)} ${fromOf(m)}: ${m.id} deleted` : '';
    }
    case 'message.redacted': {
      const m = e.message;
      return m ? `${where(m.target)} ${fromOf(m)}: ${m.id} redacted` : '';
    }
    case 'thread.created':
      return e.thread ? `#${e.thread.room_id}/${e.thread.id}` : '';
    case 'dm.created':
      return e.dm ? `dm ${e.dm.id} (${e.dm.participant_ids.join(', ')})` : '';
    case 'room.created':
      return e.room ? `#${e.room.id} (${e.room.name}, ${e.room.visibility})` : '';
    case 'room.members.updated': {
      const delta = [...(e.added ?? []).map((a) => `+${a}`), ...(e.removed ?? []).map((r) => `-${r}`)].join(' ');
      return `#${roomOf(e) ?? '?'} ${delta}`.trim();
    }
    case 'room.removed':
      return `#${roomOf(e) ?? '?'}`;
    case 'pairing.updated':
      return e.pairing ? `${e.pairing.id} (${e.pairing.remote_network_id}): ${e.pairing.status}` : '';
    case 'reaction.updated': {
      const r = e.reaction;
      return r ? `${where(r.target)} ${r.by} ${r.action === 'added' ? '+' : '-'}${r.emoji} on ${r.message_id} (${r.count})` : '';
    }
    case 'stream.replay_gap':
      return 'the server could not resume from the last event (it restarted, or the event left its replay buffer): events may be missing; newer buffered ones follow';
    default: {
      const a = e.agent;
      if (!a) return e.agent_id ?? '';
      const bits = [a.agent_id, a.reason, a.target ? where(a.target) : undefined, a.error].filter(Boolean);
      return bits.join(' ');
    }
  }
}

/** The human line of an event: time (UTC), type, description. */
export function eventLine(io: Io, e: ServiceEvent): string {
  const c = io.color;
  const time = /T(\d\d:\d\d:\d\d)/.exec(e.created_at ?? '')?.[1] ?? '--:--:--';
  const type = e.type.padEnd(20);
  const paint =
    e.type === 'stream.replay_gap' || e.type === 'agent.wake.failed' ? c.yellow : e.type.startsWith('message.') ? c.cyan : c.magenta;
  return `${c.dim(time)}  ${paint(type)}  ${oneLine(describeEvent(e))}`.trimEnd();
}

export function tailCommand(io: Io, flags: TailFlags): Promise<number> {
  return withClient(
    io,
    'tail',
    flags,
    async (client, target) => {
      const filter: EventFilter = { rooms: splitList(flags.room ?? []), types: splitList(flags.type ?? []) };
      if (flags.count !== undefined && flags.count < 1) throw new UsageError('--count: must be 1 or more');
      const network = await client.network();
      if (network.capabilities?.event_stream !== 'sse') {
        io.err(`svc tail: the server at ${client.baseUrl} does not offer the event stream (capabilities.event_stream is not sse)`);
        return EXIT.failure;
      }
      let printed = 0;
      const follower = client.followEvents({
        ...(flags.since !== undefined ? { lastEventId: flags.since } : {}),
        onEvent: (e) => {
          // Frames already parsed keep arriving after close(): stop at exactly --count.
          if (!matches(e, filter) || (flags.count !== undefined && printed >= flags.count)) return;
          io.out(flags.json ? escapeInvisible(JSON.stringify(e)) : eventLine(io, e));
          printed++;
          if (flags.count !== undefined && printed >= flags.count) follower.close();
        },
        onOpen: ({ resumed, lastEventId }) => {
          if (resumed) io.err(`svc tail: reconnected${lastEventId ? `; resuming after event ${lastEventId}` : ''}`);
          else {
            io.err(`svc tail: following events of network ${network.id} at ${client.baseUrl} (Ctrl-C to stop)`);
            const hint = anonymousHint(target, 'only message, thread and room-created events of public rooms');
            if (hint) io.err(hint);
          }
        },
        onDrop: (reason) => io.err(`svc tail: stream lost (${reason}); reconnecting`),
      });
      const onSignal = () => follower.close();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        await follower.done;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      return EXIT.ok;
    },
    { agent: { agent: flags.as, flag: '--as' } },
  );
}
