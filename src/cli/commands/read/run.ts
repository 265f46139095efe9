// svc read: the newest messages of a room, a thread or a DM, oldest first.

import type { SvcClient } from '../../../client/svc-client.js';
import type { Message } from '../../../protocol/types.js';
import { json, oneLine, table } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { UsageError } from '../../target.js';
import { withClient, type ClientFlags } from '../../with-client.js';
import { splitList } from '../../options.js';
import { reactionsSuffix } from '../../../reactions/cli.js';
import { receiptLine, receiptsOf } from '../../../receipts/cli.js';
import { changeMark } from '../edit/run.js';

export interface ReadFlags extends ClientFlags {
  /** Act as this agent: its kept token is used in place of the config's operator token. */
  as?: string;
  room?: string;
  thread?: string;
  /** A DM id, or the agents taking part in it. */
  dm?: string[];
  limit?: number;
  before?: string;
  /** Show each message's receipts (the caller's own messages, or any as an admin). */
  receipts?: boolean;
}

/** The text of a message in one line: text parts, and other parts as `[kind name]`. */
export function messageTextOf(m: Pick<Message, 'parts'>): string {
  return m.parts
    .map((p) => (p.kind === 'text' ? (p.text ?? '') : `[${p.kind}${p.filename ? ` ${p.filename}` : p.url ? ` ${p.url}` : ''}]`))
    .join(' ');
}

/** Who sent a message, scoped when from another network. */
export const senderOf = (m: Message): string =>
  m.from.network_id && m.from.network_id !== m.network_id ? `${m.from.network_id}:${m.from.id}` : m.from.id;

/** Finds the DM of a participant set: `dm_...` is taken as is; agent ids are looked up among the caller's DMs. */
async function dmIdOf(client: SvcClient, given: string[]): Promise<string> {
  if (given.length === 1 && given[0]!.startsWith('dm_')) return given[0]!;
  const wanted = given.map((g) => (g.includes(':') ? g : undefined));
  const found: string[] = [];
  let before: string | undefined;
  for (;;) {
    const { dms, page } = await client.listDms({ limit: 500, ...(before ? { before } : {}) });
    for (const d of dms) {
      const bare = d.participant_ids.map((p) => p.slice(p.indexOf(':') + 1));
      if (given.every((g, i) => (wanted[i] ? d.participant_ids.includes(g) : bare.includes(g)))) found.push(d.id);
    }
    if (!page.has_more || !page.next_before) break;
    before = page.next_before;
  }
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw new UsageError(`--dm: no DM with ${given.join(', ')} is visible to this token`);
  throw new UsageError(`--dm: ${found.length} DMs include ${given.join(', ')} (${found.join(', ')}); pass one DM id`);
}

export function readCommand(io: Io, flags: ReadFlags): Promise<number> {
  return withClient(
    io,
    'read',
    flags,
    async (client) => {
      const dm = splitList(flags.dm ?? []);
      const picked = [flags.room !== undefined, flags.thread !== undefined, dm.length > 0].filter(Boolean).length;
      if (picked !== 1) throw new UsageError('say what to read: exactly one of --room R, --thread T, --dm D');
      const q = {
        ...(flags.limit !== undefined ? { limit: flags.limit } : { limit: 20 }),
        ...(flags.before !== undefined ? { before: flags.before } : {}),
      };
      const page =
        flags.room !== undefined
          ? await client.roomMessages(flags.room, q)
          : flags.thread !== undefined
            ? await client.threadMessages(flags.thread, q)
            : await client.dmMessages(await dmIdOf(client, dm), q);
      const receipts = flags.receipts ? await receiptsOf(client, page.messages) : undefined;
      if (flags.json) {
        io.out(
          json(
            receipts
              ? { ...page, messages: page.messages.map((m) => ({ ...m, ...(receipts.has(m.id) ? { receipts: receipts.get(m.id) } : {}) })) }
              : page,
          ),
        );
        return EXIT.ok;
      }
      if (page.messages.length === 0) {
        io.out('no messages');
        return EXIT.ok;
      }
      const c = io.color;
      for (const line of table(c, page.messages, [
        { header: 'TIME', value: (m) => m.created_at.replace('T', ' ').replace(/\.\d+Z$/, 'Z'), style: (s) => c.dim(s) },
        { header: 'FROM', value: (m) => senderOf(m), style: (s, m) => (m.from.type === 'agent' ? c.cyan(s) : c.green(s)) },
        { header: 'ID', value: (m) => m.id, style: (s) => c.dim(s) },
        { header: 'TEXT', value: (m) => oneLine(messageTextOf(m)) + changeMark(m) + reactionsSuffix(m) },
        ...(receipts ? [{ header: 'RECEIPTS', value: (m: Message) => (receipts.has(m.id) ? receiptLine(receipts.get(m.id)!) : '-') }] : []),
      ])) {
        io.out(line);
      }
      if (page.page.has_more && page.page.next_before) io.err(`older messages: --before ${page.page.next_before}`);
      return EXIT.ok;
    },
    { agent: { agent: flags.as, flag: '--as' } },
  );
}
