// Files (#41): uploads (POST /v1/files), downloads (GET /v1/files/{id}), the `file` message part
// (a send extension adding the references to the message's batch), and the collector removing
// files no message references. The records are the store part src/store/files/; the bytes are a
// blob store's, chosen by the store backend (open-blobs.ts). docs/files.md tells all of it.

import type { IncomingMessage } from 'node:http';
import { storing, type FeatureFactory } from '../feature.js';
import { filesPart } from '../store/files/part.js';
import { collect, collector, ttlMs } from './collector.js';
import { downloadRoute } from './download.js';
import { openBlobs, type Blobs } from './open-blobs.js';
import { UploadQuota } from './quota.js';
import { fileBatch } from './send.js';
import { FILE_BYTES, uploadRoute } from './upload.js';
import { uploadUrls } from './upload-urls.js';
import { fileFaults } from './faults.js';
import { inProcessUpload } from './in-process.js';
import { RemoteFiles } from './remote.js';
import { baseUrlOf } from '../discovery/base-url.js';

/** Whether a request came over TLS (its links then say https). */
const isEncrypted = (req: IncomingMessage): boolean =>
  Boolean((req.socket as IncomingMessage['socket'] & { encrypted?: boolean }).encrypted);

/** How often the collector runs at most: a tenth of the TTL, between a quarter second and a minute. */
const everyMs = (ttl: number): number => Math.min(60_000, Math.max(250, Math.floor(ttl / 10)));

export const filesFeature: FeatureFactory = storing([filesPart], (app) => {
  const ctx = app.ctx;
  const files = () => ctx.store.part(filesPart)!;
  // Opened once, on first use and at start; a store that cannot be opened fails the requests (503), not the server.
  let opened: Promise<Blobs> | undefined;
  const blobs = (): Promise<Blobs> => {
    opened ??= openBlobs(ctx.config.store);
    opened.catch(() => (opened = undefined));
    return opened;
  };
  blobs().catch((err: unknown) =>
    ctx.log('warn', 'files: the file store could not be opened; uploads and downloads fail until it can', { error: String(err) }),
  );
  const quota = new UploadQuota(ctx.config.server.limits);
  const fileBytes = () => ctx.config.server.limits.file_bytes ?? FILE_BYTES;
  const faults = fileFaults(process.env);
  const sweeper = collector(async () => collect(ctx, files(), await blobs(), faults), everyMs(ttlMs(ctx)), ctx.log);
  const upload = uploadRoute({ blobs, quota, fileBytes, faults });
  // One-time upload URLs (upload-urls.ts) and in-process uploads (in-process.ts) run the upload route itself.
  const urls = uploadUrls({
    upload,
    fileBytes,
    baseUrl: (req) => baseUrlOf(req.headers, isEncrypted(req), app.address() ?? { host: '127.0.0.1', port: 0 }),
  });
  return {
    routes: [upload, downloadRoute({ blobs, files, remote: new RemoteFiles(blobs, () => ctx.extensions.peerFiles) }), ...urls.routes],
    provides: {
      files: {
        upload: inProcessUpload(ctx, upload, fileBytes),
        uploadUrl: urls.make,
        bytes: async (id, maxBytes) => {
          const f = await files().get(id);
          // A paired network's file is not passed on (no multi-hop): see info below.
          if (!f || f.remote || f.size > maxBytes) return undefined;
          const body = await (await blobs()).store.read(f.sha256);
          if (!body) return undefined;
          const chunks: Buffer[] = [];
          for await (const c of body) chunks.push(c as Buffer);
          return Buffer.concat(chunks);
        },
        info: async (id) => {
          const f = await files().get(id);
          // A file that came from a paired network is that network's: a local message naming it
          // relays its metadata only, never its bytes or a reference to them.
          return f && !f.remote ? { sha256: f.sha256, size: f.size } : undefined;
        },
      },
      fileBytes: { read: async (sha256, range) => (await blobs()).store.read(sha256, range) },
    },
    send: { batch: (m) => fileBatch(ctx, files(), m) },
    observe: {
      // A deleted or redacted message's files go at once when nothing else references them.
      event: (e) => {
        if (e.event.type === 'message.deleted' || e.event.type === 'message.redacted') sweeper.poke();
      },
    },
    reloaded: (config) => quota.configure(config.server.limits),
    close: async () => {
      await sweeper.stop();
      const b = await opened?.catch(() => undefined);
      await b?.close();
    },
  };
});
