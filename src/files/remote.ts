// The bytes of a paired network's file (#41 part 6): a relayed message named it by its id and hash
// on its home network (send.ts stored the reference), and the first download here fetches it over
// the pairing's credential (the pairings feature's PeerFiles), streams it into the spool, checks
// it against the hash the message named and keeps it as a blob like any upload's. Every later
// download is local. Concurrent first downloads share one fetch. What the peer cannot give (it is
// unreachable, late, refuses, or sends other bytes) is a 502 `bad_gateway`, and nothing is kept.

import { rm } from 'node:fs/promises';
import { AppError } from '../errors.js';
import type { PeerFiles } from '../network/file-uploads.js';
import type { FileRecord } from '../store/files/records.js';
import { BlobError, type Spooled } from './blobs/types.js';
import { spool } from './blobs/spool.js';
import type { Blobs } from './open-blobs.js';

export class RemoteFiles {
  /** Fetches under way, by file id. */
  private readonly fetching = new Map<string, Promise<void>>();
  /** References made while their hash was kept here already, whose peer has sent the bytes since this process started. */
  private readonly proven = new Set<string>();

  constructor(
    private readonly blobs: () => Promise<Blobs>,
    private readonly peers: () => PeerFiles | undefined,
  ) {}

  /**
   * Makes sure `file`'s blob is kept here: nothing for an upload, a fetch for a peer's file not yet
   * fetched. A reference whose hash this network kept before it was made (`remote.prove`) is
   * fetched once per process even so: the local bytes are served for it only after the peer showed
   * it has them (a peer that knows a hash must not get this network's readers served its file).
   */
  async ensure(file: FileRecord): Promise<void> {
    if (!file.remote) return;
    const blobs = await this.blobs();
    const kept = (await blobs.store.size(file.sha256)) !== undefined;
    if (kept && (!file.remote.prove || this.proven.has(file.id))) return;
    let running = this.fetching.get(file.id);
    if (!running) {
      running = this.fetch(blobs, file)
        .then(() => void this.proven.add(file.id))
        .finally(() => this.fetching.delete(file.id));
      this.fetching.set(file.id, running);
    }
    await running;
  }

  private async fetch(blobs: Blobs, file: FileRecord): Promise<void> {
    const { network_id: home, file_id: theirs } = file.remote!;
    const peers = this.peers();
    if (!peers)
      throw new AppError('bad_gateway', `file ${file.id} is kept on network ${home}, and this server runs no pairing to fetch it`);
    let spooled: Spooled;
    // The peer's own failure, when the stream broke off by it (the spool words it as a store's).
    let broke: unknown;
    async function* watched(source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
      try {
        yield* source;
      } catch (err) {
        broke = err;
        throw err;
      }
    }
    try {
      const source = (await peers.open(home, theirs, file.size)) as AsyncIterable<Uint8Array>;
      spooled = await spool(watched(source), blobs.spoolDir, file.size);
    } catch (err) {
      throw failure(broke ?? err, file.id, home);
    }
    if (spooled.sha256 !== file.sha256 || spooled.size !== file.size) {
      await rm(spooled.path, { force: true });
      throw new AppError('bad_gateway', `network ${home} sent other bytes than its message named for file ${file.id}; nothing was kept`);
    }
    try {
      await blobs.locks.with(file.sha256, () => blobs.store.put(spooled));
    } catch (err) {
      throw failure(err, file.id, home);
    }
  }
}

/** What a failed fetch answers: the peer's failure (502), or this server's full or failing store (507, 503). */
function failure(err: unknown, id: string, home: string): unknown {
  if (err instanceof AppError) return err;
  if (err instanceof BlobError) {
    if (err.code === 'storage_full') return new AppError('insufficient_storage', `no room to keep file ${id} fetched from ${home}`);
    if (err.code === 'too_large')
      return new AppError('bad_gateway', `network ${home} sent more bytes than its message named for file ${id}; nothing was kept`);
    return new AppError('bad_gateway', `file ${id} could not be fetched from network ${home}: ${err.message}`);
  }
  // The peer's stream failed in a way of its own (a socket cut, a body timeout).
  return new AppError('bad_gateway', `file ${id} could not be fetched from network ${home}: the transfer broke off`);
}
