// The cost of a redaction's scrub on a big sqlite store (#40 part 3): on a copy of a loaded store
// (bench/loader.ts), svc serve settles (the loader leaves every message pending for search), then
// one message is redacted while the same closed-loop ingest as big-ingest.ts runs. Reported: how
// long the scrub took (until /readyz says `redaction_scrub: done`: the search index rebuilt, the old
// one retired, the checkpoint written), svc's longest event-loop stall and the ingest rate during
// it, beside the same ingest on a fresh copy without a redaction, and the peak resident memory.
//
//   node --import tsx bench/tools/redaction-scrub.ts [messages=1000000] [seconds=10] [--keep DIR]

import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Conn, getBytes, postBytes } from '../lib/http.js';
import { rssMb, stopAll, untilIdle } from '../lib/procs.js';
import { PUBLISHER, startSvc, TOKEN } from '../lib/svc.js';
import { svcTarget } from '../lib/targets.js';
import { ensureLoaded } from '../lib/loaded.js';
import { opt, positional } from '../lib/args.js';

const [messages = 1_000_000, seconds = 10] = positional(['--keep'])
  .filter((a) => /^\d+$/.test(a))
  .map(Number);
const keep = opt('--keep') && path.resolve(opt('--keep')!);
const work = mkdtempSync(path.join(os.tmpdir(), 'svc-redact-'));
const source = keep ?? path.join(work, 'source');

ensureLoaded(source, messages);

async function scrubState(port: number): Promise<string | undefined> {
  const c = await Conn.open(port);
  try {
    const r = await c.request(getBytes('/readyz'));
    return (JSON.parse(r.body.toString()) as { store?: { redaction_scrub?: string } }).store?.redaction_scrub;
  } finally {
    c.close();
  }
}

/** A message of the loader's (its cursors file names some per room). */
function someMessage(dir: string): string {
  const cursors = JSON.parse(readFileSync(path.join(dir, 'cursors.json'), 'utf8')) as Record<string, string[]>;
  return Object.values(cursors).flat()[0]!;
}

async function round(redact: boolean): Promise<string> {
  const dir = path.join(work, redact ? 'redact' : 'plain');
  cpSync(source, dir, { recursive: true });
  const svc = await startSvc({
    dir,
    rooms: [{ id: 'ingest', members: [PUBLISHER] }],
    checkpointBytes: 16 * 1024 * 1024,
    watchStalls: true,
  });
  try {
    const settled = await untilIdle(svc.pid);
    let peak = rssMb(svc.pid) ?? 0;
    const steady = peak;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(svc.pid) ?? 0)), 50);
    const t0 = Date.now();
    if (redact) {
      const c = await Conn.open(svc.port);
      const r = await c.request(postBytes(`/v1/messages/${someMessage(dir)}/redact`, '{}', TOKEN));
      c.close();
      if (r.status !== 200) throw new Error(`redact: ${r.status} ${r.body.toString()}`);
    }
    const ing = await svcTarget(svc).ingest(50, seconds);
    const stall = await svc.stallMaxMs(t0, Date.now());
    let scrub = '';
    if (redact) {
      while ((await scrubState(svc.port)) !== 'done') await new Promise((r) => setTimeout(r, 250));
      const total = await svc.stallMaxMs(t0, Date.now());
      scrub = ` scrub ${((Date.now() - t0) / 1000).toFixed(1)} s (longest stall over it ${total?.toFixed(1)} ms)`;
    }
    clearInterval(sampler);
    return `${redact ? 'redaction' : 'no redaction'}: settled in ${settled} s; ingest ${Math.round(ing.rate)}/s, longest stall during it ${stall?.toFixed(1)} ms;${scrub} rss ${steady.toFixed(0)} -> peak ${peak.toFixed(0)} MB`;
  } finally {
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  for (const redact of [false, true]) process.stderr.write(`${await round(redact)}\n`);
} finally {
  await stopAll();
  rmSync(work, { recursive: true, force: true });
}
