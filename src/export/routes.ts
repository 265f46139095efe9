// GET /v1/export: the network as export lines (format.ts), streamed as it is read from one
// snapshot of the store (stream.ts). The status and headers go out before the first line; a
// failure after that cuts the connection, and the missing end line tells the reader the file is
// incomplete.

import type { ServerResponse } from 'node:http';
import { AppError, badRequest } from '../errors.js';
import type { Route } from '../http/router.js';
import { streamExport } from './stream.js';
import { withFileBlobs } from './with-files.js';

/** A boolean query flag: absent, `true` or `false`. */
function flag(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null || v === 'false') return false;
  if (v === 'true') return true;
  throw badRequest(`query.${name}: must be true or false`);
}

/** Writes a chunk; resolves once the response can take more (or rejects when the reader left). */
async function write(res: ServerResponse, chunk: string): Promise<void> {
  if (res.destroyed) throw new Error('the client went away');
  if (res.write(chunk)) return;
  // Whichever comes first; neither listener outlives the wait (a rejection left behind would be unhandled).
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
  if (res.destroyed) throw new Error('the client went away');
}

export const exportRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/export',
    action: 'admin',
    raw: true,
    handler: async ({ ctx, res, url }) => {
      const secrets = flag(url.searchParams, 'with_secrets');
      // The files' bytes come from the files feature's blob store; without it there are none to add.
      const fileBytes = ctx.extensions.fileBytes;
      if (flag(url.searchParams, 'with_files') && !fileBytes) throw badRequest('query.with_files: this server keeps no files');
      const files = flag(url.searchParams, 'with_files') ? fileBytes : undefined;
      const abandoned = new AbortController();
      res.on('close', () => abandoned.abort(new Error('the client went away')));
      let started = false;
      const out = async (chunk: string) => {
        if (!started) {
          started = true;
          res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' });
        }
        await write(res, chunk);
      };
      const blobs = files ? withFileBlobs(out, (sha256) => files.read(sha256)) : undefined;
      const emit = blobs?.emit ?? out;
      const meta = {
        network_id: ctx.config.network.id,
        ...(ctx.uid ? { network_uid: ctx.uid } : {}),
        svc_version: ctx.version,
        with_secrets: secrets,
        pairingIds: ctx.config.pairings.map((p) => p.id),
      };
      try {
        await streamExport(ctx.store, meta, emit, abandoned.signal);
        await blobs?.finish();
      } catch (err) {
        if (abandoned.signal.aborted) {
          ctx.log('info', 'export abandoned by the client');
          return;
        }
        ctx.log('warn', 'export failed', { error: (err as Error).message });
        if (!started) throw new AppError('service_unavailable', `the export failed: ${(err as Error).message}`);
        // The lines so far are out: cut the connection so the reader sees no end line.
        res.destroy();
        return;
      }
      ctx.log('info', 'export written', { with_secrets: secrets, with_files: files !== undefined });
      res.end();
    },
    doc: {
      tag: 'operations',
      summary: 'Export the network as JSON Lines, from one consistent snapshot, while writes go on.',
      description:
        'The whole network (rooms and members, agents, messages with their versions, threads, DMs, events, reactions, receipts, read states) as `application/x-ndjson`, one record a line, in the format docs/export.md describes: a header line first, an `end` line with the counts last (a response without it was cut short). Read from one snapshot: a REPEATABLE READ transaction on Postgres, a checkpointed image read off the main thread on sqlite. Agent token hashes and OAuth state are left out unless `with_secrets=true`. `svc export` calls it; `svc import` loads the file into an empty store.',
      query: [
        {
          name: 'with_secrets',
          description: 'Include agent credential keys (token hashes) and OAuth clients, grants and tokens: `true` or `false` (default).',
          schema: { type: 'string', enum: ['true', 'false'] },
        },
        {
          name: 'with_files',
          description:
            "Include the bytes of every file the messages reference, as `file_blob` lines before the end line (docs/files.md): `true` or `false` (default). Without it the files' records come along, their bytes do not.",
          schema: { type: 'string', enum: ['true', 'false'] },
        },
      ],
      responses: { 200: { description: 'The export, one JSON record a line.', media: 'application/x-ndjson' } },
      errors: [503],
    },
  },
];
