// svc versions MESSAGE: the versions an edit replaced, oldest first, then which version is current.

import { json, oneLine, table } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { withClient, type ClientFlags } from '../../with-client.js';
import { messageTextOf } from '../read/run.js';

export interface VersionsFlags extends ClientFlags {
  /** Read as this agent: its kept token is used in place of the config's operator token. */
  as?: string;
}

export function versionsCommand(io: Io, messageId: string, flags: VersionsFlags): Promise<number> {
  return withClient(
    io,
    'versions',
    flags,
    async (client) => {
      const v = await client.messageVersions(messageId);
      if (flags.json) {
        io.out(json(v));
        return EXIT.ok;
      }
      if (v.items.length === 0) {
        io.out(`${v.message_id} was never edited (version ${v.version})`);
        return EXIT.ok;
      }
      const c = io.color;
      for (const line of table(c, v.items, [
        { header: 'VERSION', value: (x) => String(x.version) },
        { header: 'TIME', value: (x) => x.created_at.replace('T', ' ').replace(/\.\d+Z$/, 'Z'), style: (s) => c.dim(s) },
        { header: 'TEXT', value: (x) => oneLine(messageTextOf({ parts: x.parts })) },
      ])) {
        io.out(line);
      }
      io.out(`current: version ${v.version} (svc read shows it)`);
      return EXIT.ok;
    },
    { agent: { agent: flags.as, flag: '--as' } },
  );
}
