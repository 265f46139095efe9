// svc search WORDS: full-text search for operators and scripts.

import type { SearchHit, SearchParams } from '../../../client/svc-client.js';
import type { ChalkInstance } from 'chalk';
import { json, oneLine } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { withClient, type ClientFlags } from '../../with-client.js';

export interface SearchFlags extends ClientFlags {
  /** Act as this agent: its kept token is used in place of the config's operator token. */
  as?: string;
  room?: string;
  thread?: string;
  dm?: string;
  from?: string;
  limit?: number;
  before?: string;
}

/** Where a message was said: `#room`, `#room/thread` or `dm:id`. */
export function placeOf(m: SearchHit): string {
  const t = m.target;
  if (t.kind === 'dm') return `dm:${t.dm_id}`;
  return t.kind === 'thread' ? `#${t.room_id}/${t.thread_id}` : `#${t.room_id}`;
}

/** A snippet for the terminal: matches in bold with colour, kept between `**` without. */
export function highlight(c: ChalkInstance, snippet: string): string {
  const flat = oneLine(snippet);
  if (c.level === 0) return flat;
  return flat.replace(/\*\*([^*]+)\*\*/g, (_, w: string) => c.bold.yellow(w));
}

/** Prints one line per hit (time, place, sender, snippet, id), or the answer as JSON with --json. */
export function searchCommand(io: Io, words: string[], flags: SearchFlags): Promise<number> {
  return withClient(
    io,
    'search',
    flags,
    async (client) => {
      const q: SearchParams = { q: words.join(' ') };
      if (flags.room !== undefined) q.room_id = flags.room;
      if (flags.thread !== undefined) q.thread_id = flags.thread;
      if (flags.dm !== undefined) q.dm_id = flags.dm;
      if (flags.from !== undefined) q.from = flags.from;
      if (flags.limit !== undefined) q.limit = flags.limit;
      if (flags.before !== undefined) q.before = flags.before;
      const r = await client.search(q);
      if (flags.json) {
        io.out(json(r));
        return EXIT.ok;
      }
      const c = io.color;
      if (r.messages.length === 0) {
        io.out(`no messages match ${JSON.stringify(q.q)}`);
        return EXIT.ok;
      }
      for (const m of r.messages) {
        const when = m.created_at.slice(0, 16).replace('T', ' ');
        io.out(`${c.dim(when)}  ${c.cyan(oneLine(placeOf(m)))}  ${oneLine(m.from.id)}: ${highlight(c, m.snippet)}  ${c.dim(m.id)}`);
      }
      if (r.page.has_more && r.page.next_before) io.out(c.dim(`older matches: run again with --before ${r.page.next_before}`));
      return EXIT.ok;
    },
    { agent: { agent: flags.as, flag: '--as' } },
  );
}
