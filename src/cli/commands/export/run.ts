// svc export: streams GET /v1/export to stdout or a file, checking as it passes that the last
// line is the end line (a connection cut short is a failure, and a file is only put in place
// complete). On a terminal, stderr shows how many of the header's messages have gone by.

import fs from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { EXIT, type Io } from '../../io.js';
import { json } from '../../format.js';
import { withClient, type ClientFlags } from '../../with-client.js';
import { progressLine } from '../store/copy.js';

export interface ExportFlags {
  output?: string;
  withSecrets: boolean;
  withFiles?: boolean;
}

/** Watches the lines go by: the header's message count, messages seen, the last line. */
class LineWatch {
  total = 0;
  messages = 0;
  lines = 0;
  private tail = '';
  last = '';

  take(chunk: string): void {
    const parts = (this.tail + chunk).split('\n');
    this.tail = parts.pop()!;
    for (const l of parts) {
      if (this.lines === 0) this.total = Number((JSON.parse(l) as { messages?: number }).messages ?? 0);
      else if (l.startsWith('{"type":"message"')) this.messages++;
      this.lines++;
      this.last = l;
    }
  }

  get complete(): boolean {
    return this.tail === '' && this.last.startsWith('{"type":"end"');
  }
}

export function exportCommand(io: Io, o: ExportFlags, flags: ClientFlags, stderr: NodeJS.WriteStream = process.stderr): Promise<number> {
  return withClient(io, 'export', flags, async (client) => {
    const body = await client.exportStream({ withSecrets: o.withSecrets, withFiles: Boolean(o.withFiles) });
    const partial = o.output ? `${o.output}.partial` : undefined;
    const out: Writable = partial ? fs.createWriteStream(partial, { mode: 0o600 }) : process.stdout;
    const watch = new LineWatch();
    const decoder = new StringDecoder('utf8');
    const started = Date.now();
    const tty = Boolean(stderr.isTTY);
    let drawn = false;
    let lastDraw = 0;
    try {
      for await (const chunk of body) {
        watch.take(decoder.write(chunk as Buffer));
        if (!out.write(chunk)) await once(out, 'drain');
        if (tty && Date.now() - lastDraw > 100) {
          lastDraw = Date.now();
          stderr.write(`\r${progressLine(watch.messages, watch.total, Date.now() - started)}`);
          drawn = true;
        }
      }
    } catch (err) {
      if (partial) fs.rmSync(partial, { force: true });
      throw new Error(`the export was cut short after ${watch.lines} lines: ${(err as Error).message}`);
    } finally {
      if (drawn) stderr.write(`\r${progressLine(watch.messages, watch.total, Date.now() - started)}\n`);
      if (partial) {
        out.end();
        await once(out, 'close');
      }
    }
    if (!watch.complete) {
      if (partial) fs.rmSync(partial, { force: true });
      io.err(
        `svc export: the export was cut short after ${watch.lines} lines (no end line): the server logged why; nothing was written${partial ? '' : ' beyond those lines'}`,
      );
      return EXIT.failure;
    }
    if (partial && o.output) {
      fs.renameSync(partial, o.output);
      const summary = {
        file: o.output,
        lines: watch.lines,
        messages: watch.messages,
        with_secrets: o.withSecrets,
        with_files: Boolean(o.withFiles),
      };
      if (flags.json) io.out(json(summary));
      else
        io.out(
          `exported ${watch.messages} messages (${watch.lines} lines${o.withSecrets ? ', with secrets' : ''}${o.withFiles ? ', with files' : ''}) into ${o.output}`,
        );
    }
    return EXIT.ok;
  });
}
