// Files of relayed messages fetched on demand (#41 part 6), both halves.
//
// The home network's side: GET /v1/pairing/files/{id} gives a peer the bytes of a file, to its
// pair credential only, and only a file a message relayed over that very pairing references (a
// local message the pairing carries: relay-delivery.ts's `eligible`); anything else answers 404,
// as a file that does not exist. A direct pairing streams the bytes; the relay's frames carry JSON,
// so over a relay the peer reads /chunk?offset= answers of CHUNK_BYTES each, in base64.
//
// The peer's side: `openPeerFile` fetches such a file over the pairing's own transport, as the
// files feature's PeerFiles (src/files/remote.ts keeps it, hash-checked, on the first download).

import { pipeline } from 'node:stream/promises';
import { AppError, notFound } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import type { NetworkContext } from '../network/context.js';
import type { Route } from '../http/router.js';
import { filesPart } from '../store/files/part.js';
import type { FileRecord } from '../store/files/records.js';
import type { PairingManager } from './manager.js';
import { TransportError, type PairTransport } from './transport.js';

/** Bytes per chunk over a relay: 768 KiB, 1 MiB in base64, well inside a relay frame (2 MiB). */
export const CHUNK_BYTES = 768 * 1024;
/** References looked at for one request, as for a download (files/access.ts). */
const REFS_CHECKED = 200;

const PATH = '/v1/pairing/files';
/** The paths a relay forwards to this server (inbound.ts). */
export const PEER_FILE_PATH = /^\/v1\/pairing\/files\/file_[0-9A-Za-z]{1,64}(\/chunk)?$/;

export interface PeerLookup {
  list(): PairingManager[];
  get(id: string): PairingManager | undefined;
}

/** The file `id` if a message relayed over the caller's pairing references it; 404 otherwise. */
async function relayedFile(ctx: NetworkContext, pairings: PeerLookup, p: Principal, id: string): Promise<FileRecord> {
  const files = ctx.store.part(filesPart);
  const file = await files?.get(id);
  // A pair credential is its pairing's (pairings[].id equals auth.tokens[].id); with auth mode none, any pairing's.
  const mine = p.kind === 'static' ? [pairings.get(p.tokenId)] : p.kind === 'trusted' ? pairings.list() : [];
  // A file that came from a peer itself is never passed on (no multi-hop): only local messages relay.
  if (files && file && !file.remote) {
    for (const ref of (await files.refs(id)).slice(0, REFS_CHECKED)) {
      const rec = await ctx.store.getMessage(ref.message_id);
      if (!rec) continue;
      for (const m of mine) if (m && (await m.relays(rec.message))) return file;
    }
  }
  throw notFound(`file ${id}`);
}

async function bytesOf(ctx: NetworkContext, file: FileRecord, range?: { start: number; end: number }) {
  const body = await ctx.extensions.fileBytes?.read(file.sha256, range);
  if (!body) throw notFound(`file ${file.id}`);
  return body;
}

export function peerFileRoutes(pairings: PeerLookup): Route[] {
  return [
    {
      method: 'GET',
      path: `${PATH}/:file_id`,
      action: 'pairing.files',
      raw: true,
      handler: async (c) => {
        const file = await relayedFile(c.ctx, pairings, c.principal, c.params.file_id!);
        const body = await bytesOf(c.ctx, file);
        c.res.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-length': String(file.size),
          'x-content-type-options': 'nosniff',
          'cache-control': 'private, no-store',
        });
        await pipeline(body, c.res).catch(() => c.res.destroy());
      },
      doc: {
        tag: 'pairings',
        summary: "A file's bytes for a paired network (its pair credential), when a message relayed over that pairing references it.",
        description:
          'The peer fetches a file that a relayed message named by `origin_file` on its first download there. Any other file, or any other credential, answers 404 as a file that does not exist.',
        responses: { 200: { description: "The file's bytes.", media: 'application/octet-stream' } },
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:file_id/chunk`,
      action: 'pairing.files',
      handler: async (c) => {
        const file = await relayedFile(c.ctx, pairings, c.principal, c.params.file_id!);
        const offset = Number(c.url.searchParams.get('offset') ?? '0');
        if (!Number.isInteger(offset) || offset < 0 || offset > file.size)
          throw new AppError('bad_request', `query.offset: must be a whole number from 0 to the file's size (${file.size})`);
        const end = Math.min(file.size, offset + CHUNK_BYTES);
        const chunks: Buffer[] = [];
        if (end > offset) for await (const b of await bytesOf(c.ctx, file, { start: offset, end: end - 1 })) chunks.push(b as Buffer);
        return { body: { offset, size: file.size, data: Buffer.concat(chunks).toString('base64') } };
      },
      doc: {
        tag: 'pairings',
        summary: "A piece of a file's bytes for a paired network, in JSON (the relay transport's frames carry JSON).",
        description: `As GET ${PATH}/{file_id}: up to ${CHUNK_BYTES} bytes from \`offset\`, base64 in \`data\`.`,
        query: [{ name: 'offset', description: 'The first byte of the piece.', schema: { type: 'integer', minimum: 0 } }],
        responses: {
          200: {
            description: 'The piece.',
            json: {
              type: 'object',
              required: ['offset', 'size', 'data'],
              properties: { offset: { type: 'integer' }, size: { type: 'integer' }, data: { type: 'string' } },
            },
          },
        },
      },
    },
  ];
}

/** A failure to fetch file `id` from `home`, as the download answers it: 502 with the cause in words. */
function fetchFailed(home: string, id: string, why: string): AppError {
  return new AppError('bad_gateway', `file ${id} could not be fetched from network ${home}: ${why}`);
}

/** The bytes (`size` of them) of the peer's file `id` over `transport`, as they arrive. */
export async function openPeerFile(transport: PairTransport, home: string, id: string, size: number): Promise<AsyncIterable<Uint8Array>> {
  const path = `${PATH}/${encodeURIComponent(id)}`;
  const words = (err: unknown): unknown => (err instanceof TransportError ? fetchFailed(home, id, err.message) : err);
  if (transport.stream) {
    let res: Awaited<ReturnType<NonNullable<PairTransport['stream']>>>;
    try {
      res = await transport.stream(path);
    } catch (err) {
      throw words(err);
    }
    if (res.status !== 200) {
      res.body.resume();
      throw fetchFailed(home, id, `it answered HTTP ${res.status}`);
    }
    return res.body;
  }
  // Over a relay: one JSON chunk after another.
  return (async function* chunks() {
    let offset = 0;
    while (offset < size) {
      let r: Awaited<ReturnType<PairTransport['request']>>;
      try {
        r = await transport.request('GET', `${path}/chunk?offset=${offset}`);
      } catch (err) {
        throw words(err);
      }
      const data = (r.body as { data?: unknown } | undefined)?.data;
      if (r.status !== 200 || typeof data !== 'string') throw fetchFailed(home, id, `it answered HTTP ${r.status}`);
      const bytes = Buffer.from(data, 'base64');
      if (bytes.length === 0) throw fetchFailed(home, id, `it sent ${offset} of ${size} bytes`);
      offset += bytes.length;
      yield bytes;
    }
  })();
}
