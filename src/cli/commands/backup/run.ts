// svc backup DIR: the server, which holds the sqlite store and its lock, writes the backup
// (POST /v1/backup, src/backup/); this prints where and how big. On a terminal a line tells the
// operator it is under way when it takes more than a moment.

import path from 'node:path';
import { json } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { withClient, type ClientFlags } from '../../with-client.js';

/** Bytes for people: 1.4 MB. */
export function sizeOf(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let n = bytes;
  let u = 0;
  while (n >= 1000 && u < units.length - 1) {
    n /= 1000;
    u++;
  }
  return `${u === 0 ? n : n.toFixed(1)} ${units[u]}`;
}

export function backupCommand(io: Io, dir: string, flags: ClientFlags): Promise<number> {
  // The server takes an absolute path; the command is for a server on this machine.
  const target = path.resolve(dir);
  return withClient(io, 'backup', flags, async (client) => {
    const started = Date.now();
    const timer =
      io.isTTY && !flags.json
        ? setInterval(() => process.stderr.write(`\rbacking up into ${target}: ${Math.round((Date.now() - started) / 1000)} s`), 1000)
        : undefined;
    let m;
    try {
      m = await client.backup(target);
    } finally {
      if (timer) {
        clearInterval(timer);
        if (Date.now() - started >= 1000) process.stderr.write('\n');
      }
    }
    if (flags.json) {
      io.out(json(m));
      return EXIT.ok;
    }
    const journals = m.files.filter((f) => f.name.includes('.journal.'));
    const tail = journals.reduce((n, f) => n + f.bytes, 0);
    io.out(`backed up network ${m.network_id} into ${m.dir}: ${sizeOf(m.bytes)} (journal tail ${sizeOf(tail)}) at ${m.taken_at}`);
    io.out(`restore it with the server stopped: svc restore ${m.dir}`);
    return EXIT.ok;
  });
}
