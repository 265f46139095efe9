// svc send: posts one message to a room, a thread or a DM, as a person or as an agent (--as).

import { envValue } from '../../../config/env.js';
import { unmentionedLines } from '../../../protocol/mentions.js';
import type { Part, SendRequest } from '../../../protocol/types.js';
import { json } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { UsageError } from '../../target.js';
import { withClient, type ClientFlags } from '../../with-client.js';
import { splitList } from '../../options.js';

export interface SendFlags extends ClientFlags {
  room?: string;
  thread?: string;
  /** parent_message_id of a new thread. */
  parent?: string;
  dm?: string[];
  /** Send as this agent; otherwise as a person (--human, $USER). */
  as?: string;
  human?: string;
  mention?: string[];
  /** The message id: the idempotency key (a retry with the same id stores nothing new). */
  id?: string;
  /** Files to upload and attach, in this order after the text. */
  file?: string[];
}

type SendTarget = SendRequest['target'];

/** The target of a send from its flags; throws UsageError for a wrong combination. */
export function sendTarget(f: Pick<SendFlags, 'room' | 'thread' | 'parent' | 'dm'>): SendTarget {
  const dm = splitList(f.dm ?? []);
  if (dm.length > 0) {
    if (f.room !== undefined || f.thread !== undefined) throw new UsageError('--dm: a DM is not in a room; drop --room/--thread');
    // A dm id names the DM itself; agent ids name its participants (the sender is added).
    if (dm.length === 1 && dm[0]!.startsWith('dm_')) return { kind: 'dm', dm_id: dm[0]! };
    return { kind: 'dm', participant_ids: dm };
  }
  if (f.room === undefined) throw new UsageError('say where: --room R, --room R --thread T, or --dm AGENT');
  if (f.thread !== undefined) {
    return { kind: 'thread', room_id: f.room, thread_id: f.thread, ...(f.parent !== undefined ? { parent_message_id: f.parent } : {}) };
  }
  if (f.parent !== undefined) throw new UsageError('--parent: only with --thread (it starts a thread under that message)');
  return { kind: 'room', room_id: f.room };
}

/** The sender: an agent with --as; otherwise a person. */
export function sender(f: Pick<SendFlags, 'as' | 'human' | 'token'>, env: NodeJS.ProcessEnv): SendRequest['from'] {
  if (f.as !== undefined) {
    if (f.human !== undefined) throw new UsageError('--as and --human: pick one sender');
    return { type: 'agent', id: f.as };
  }
  const token = f.token ?? envValue(env, 'SVC_TOKEN');
  if (f.human === undefined && token?.startsWith('agt_v1_')) throw new UsageError('an agent token sends as its agent: pass --as AGENT_ID');
  const user = envValue(env, 'USER');
  return { type: 'human', id: f.human ?? (user !== undefined && /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(user) ? user : 'operator') };
}

/** The text: the words given, or all of stdin for `-`. */
export async function messageText(words: string[], stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  if (words.length === 0) throw new UsageError('TEXT: nothing to send (give the text, - to read it from stdin, or --file PATH)');
  let text: string;
  if (words.length === 1 && words[0] === '-') {
    const chunks: Buffer[] = [];
    for await (const c of stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as string));
    text = Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  } else {
    text = words.join(' ');
  }
  if (text.trim() === '')
    throw new UsageError(
      words.length === 1 && words[0] === '-'
        ? 'stdin was empty: nothing to send'
        : 'TEXT: nothing to send (give the text, or - to read it from stdin)',
    );
  return text;
}

export function sendCommand(io: Io, words: string[], flags: SendFlags): Promise<number> {
  return withClient(
    io,
    'send',
    flags,
    async (client, _t, pick) => {
      const target = sendTarget(flags);
      // An agent token names its agent: --as is read from it (and was checked against it when given).
      const from: SendRequest['from'] =
        pick?.agentId !== undefined && flags.human === undefined ? { type: 'agent', id: pick.agentId } : sender(flags, io.env);
      const files = flags.file ?? [];
      // With files the text may be left out; without, it is the whole message.
      const text = files.length > 0 && words.length === 0 ? undefined : await messageText(words);
      // Each file is uploaded before the message is sent, so the message never names a missing file.
      const fileParts = files.length > 0 ? await (await import('./files.js')).uploadAll(client, files) : [];
      const mentions = splitList(flags.mention ?? []);
      const res = await client.send({
        ...(flags.id !== undefined ? { id: flags.id } : {}),
        target,
        from,
        parts: [...(text !== undefined ? [{ kind: 'text' as const, text }] : []), ...(fileParts as unknown as Part[])],
        ...(mentions.length > 0 ? { mentions } : {}),
      });
      if (flags.json) {
        io.out(json(res));
        return EXIT.ok;
      }
      const where =
        target.kind === 'room'
          ? `#${target.room_id}`
          : target.kind === 'thread'
            ? `#${target.room_id}/${target.thread_id}`
            : `dm ${target.dm_id ?? target.participant_ids?.join(',')}`;
      const created = res.thread_created ? ' (new thread)' : res.dm_created ? ' (new DM)' : '';
      const withFiles = fileParts.length > 0 ? ` with ${fileParts.length} file${fileParts.length === 1 ? '' : 's'}` : '';
      io.out(`sent ${res.message_id} to ${where}${created}${withFiles}`);
      // Sent either way (mentions are best-effort), but a mention that wakes nobody is said, with its fix.
      for (const line of unmentionedLines(res.unmentioned ?? [])) io.err(`svc send: ${line}`);
      return EXIT.ok;
    },
    { agent: { agent: flags.as, flag: '--as', infer: flags.human === undefined } },
  );
}
