// svc delete MESSAGE: deletes a message as its sender (--as, --human, an agent token) or, with none
// of them, as whoever the token proves: the sender, else an operator. Deleting a tombstone again
// succeeds and changes nothing (the server answers the tombstone).

import { json } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { withClient } from '../../with-client.js';
import { changer, changerNeed, type ChangerFlags } from '../edit/run.js';

export function deleteCommand(io: Io, messageId: string, flags: ChangerFlags): Promise<number> {
  return withClient(
    io,
    'delete',
    flags,
    async (client, _t, pick) => {
      const from = changer(flags, pick);
      const m = await client.deleteMessage(messageId, from ? { from } : {});
      if (flags.json) {
        io.out(json(m));
        return EXIT.ok;
      }
      io.out(`deleted ${m.id}: a tombstone stays in its place`);
      return EXIT.ok;
    },
    changerNeed(flags),
  );
}
