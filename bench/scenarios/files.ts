// The upload row (#41): MiB/s of `uploadBytes` uploads (POST /v1/files, raw bodies, `uploaders`
// at a time, each upload new content so every one is hashed, spooled and stored), and the ingest
// p99 of small messages while the uploads run, beside the same ingest alone on the same server.
// A file's bytes never pass through the message path, so an upload must not hold up a send: the
// ratio of the two p99s says whether it does. `reps` rounds, alone then with uploads; medians.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Conn } from '../lib/http.js';
import type { RunContext } from '../lib/run-context.js';
import { nowMs, round } from '../lib/stats.js';
import { PUBLISHER, startSvc, TOKEN } from '../lib/svc.js';
import { svcTarget } from '../lib/targets.js';
import type { FilesResult } from '../lib/scenario-results.js';
export type { FilesResult };

/** The raw request of one upload: a fresh first 16 bytes make each a new blob. */
function uploadRequest(body: Buffer, n: number): Buffer {
  body.writeBigUInt64BE(BigInt(n), 0);
  body.writeBigUInt64BE(BigInt(process.pid), 8);
  const head =
    `POST /v1/files?name=bench-${n}.bin HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${TOKEN}\r\n` +
    `content-type: application/octet-stream\r\ncontent-length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};

/** Fills `results.files`. */
export async function runFiles(ctx: RunContext): Promise<void> {
  const { results, sizes, reps, tmp, log, note } = ctx;
  const { uploadBytes, uploaders } = sizes.files;
  const dir = path.join(tmp, 'files');
  mkdirSync(dir);
  const svc = await startSvc({ dir, rooms: [{ id: 'ingest', members: [PUBLISHER] }] });
  const t = svcTarget(svc);
  const alone: number[] = [];
  const withUploads: number[] = [];
  const rates: number[] = [];
  let uploads = 0;
  let failed: string | undefined;
  try {
    // Warm-up of both paths, outside the numbers.
    await t.ingest(sizes.ingest.clients, Math.min(2, sizes.ingest.seconds / 4));
    const body = Buffer.alloc(uploadBytes, 0x61);
    let n = 0;
    const warm = await Conn.open(svc.port);
    await warm.request(uploadRequest(body, n++));
    warm.close();
    for (let k = 1; k <= reps; k++) {
      log(`svc: ingest alone, then with ${uploaders} uploaders of ${uploadBytes} bytes${reps > 1 ? ` (repetition ${k} of ${reps})` : ''}`);
      const a = await t.ingest(sizes.ingest.clients, sizes.ingest.seconds);
      if (a.latency.summary().p99_ms !== null) alone.push(a.latency.summary().p99_ms!);
      let stop = false;
      let bytes = 0;
      let lastDone = 0;
      const conns = await Promise.all(Array.from({ length: uploaders }, () => Conn.open(svc.port)));
      const from = nowMs();
      // Each uploader starts at once and finishes the upload it is in when the ingest ends: every
      // upload counts, over the time from the first start to the last finish.
      const loops = conns.map(async (c) => {
        while (!stop) {
          const r = await c.request(uploadRequest(body, n++));
          if (r.status < 200 || r.status > 299) {
            failed ??= `${r.status} ${r.body.toString().slice(0, 200)}`;
            return;
          }
          bytes += uploadBytes;
          uploads++;
          lastDone = nowMs();
        }
      });
      const w = await t.ingest(sizes.ingest.clients, sizes.ingest.seconds);
      stop = true;
      await Promise.all(loops);
      for (const c of conns) c.close();
      if (lastDone > from) rates.push(bytes / 1024 / 1024 / ((lastDone - from) / 1000));
      if (w.latency.summary().p99_ms !== null) withUploads.push(w.latency.summary().p99_ms!);
      if (a.errors + w.errors > 0) note(`files: ${a.errors + w.errors} failed sends (first: ${a.firstError ?? w.firstError})`);
    }
  } finally {
    await svc.stop();
  }
  if (failed) throw new Error(`an upload failed: ${failed}`);
  const pa = median(alone);
  const pw = median(withUploads);
  const rate = median(rates);
  results.files = {
    upload_mib_per_s: rate === null ? null : round(rate),
    ingest_p99_ms_with_uploads: pw,
    ingest_p99_ms_alone: pa,
    ingest_p99_ratio: pa && pw !== null ? round(pw / pa) : null,
    upload_bytes: uploadBytes,
    uploaders,
    uploads,
    reps,
  };
}
