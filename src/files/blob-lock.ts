// One lock per blob name, in this process: what an upload does to a blob's users (its record, then
// the blob, which it skips when the bytes are already kept) and what the collector does (counts the
// users, deletes the blob when there are none) happen in turn for one hash, never interleaved. Without
// it an upload of bytes the collector was deleting found the blob still there, kept no copy, and its
// file answered 404 once the delete went through.

export class BlobLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` once every earlier holder of `sha256` is done; the next waits for it. */
  async with<T>(sha256: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(sha256) ?? Promise.resolve();
    const mine = before.then(fn, fn);
    const tail = mine.catch(() => {});
    this.tails.set(sha256, tail);
    try {
      return await mine;
    } finally {
      // The last holder leaves no entry behind.
      if (this.tails.get(sha256) === tail) this.tails.delete(sha256);
    }
  }
}
