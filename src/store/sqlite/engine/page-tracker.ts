// Which pages of one database file changed since the last checkpoint, and which were written since
// the open (page-hook.ts reports every read and write of the file here).

import fs from 'node:fs';

/**
 * The file on disk a database was opened from, read on demand: pages never written since the open
 * are read from it rather than loaded into memory at start.
 */
export interface BaseFile {
  fd: number;
  size: number;
}

/** Reads one page of the in-memory file into `into` (page-size bytes). */
type PageReader = (pgno: number, into: Uint8Array) => void;

/**
 * Which pages of one database file were written since the last checkpoint's snapshot. Their bytes
 * stay in the in-memory file until a checkpoint copies them, in batches between turns; a write that
 * lands on a page not yet copied first saves the snapshot's bytes of it (copy on write), so the
 * checkpoint writes one consistent state without stopping writes.
 */
export class PageTracker {
  private dirty = new Set<number>();
  /** Every page written since the open: the in-memory file holds these, `base` the others. */
  private readonly written = new Set<number>();
  /**
   * Pages of the running snapshot not copied yet, and the snapshot's bytes of those overwritten
   * since (the checkpoint copies a slice per turn, so this holds at most the pages written meanwhile).
   */
  private pending = new Set<number>();
  private saved = new Map<number, Uint8Array>();
  /** Set when a write did not cover whole pages: the next checkpoint must write a whole image. */
  lost: string | undefined;
  /** Pages saved by copy on write since the open (tests check the path ran). */
  savedOnWrite = 0;
  /**
   * Base-file pages read ahead for the read about to run (prefetch.ts), served from here instead
   * of a system call each; cleared when that read is done.
   */
  readonly prefetched = new Map<number, Uint8Array>();
  /** Base-file reads on demand (system calls) since the open. */
  baseReads = 0;

  constructor(
    readonly pageSize: number,
    readonly base: BaseFile | undefined,
    private readonly readPage: PageReader,
  ) {}

  /** Pages changed since the last snapshot. */
  get size(): number {
    return this.dirty.size;
  }

  private pagesOf(position: number, length: number): [number, number] {
    return [Math.floor(position / this.pageSize) + 1, Math.floor((position + length - 1) / this.pageSize) + 1];
  }

  /** Called before a write lands: keeps the snapshot's bytes of the pages it overwrites. */
  beforeWrite(position: number, length: number): void {
    if (this.pending.size === 0 || length === 0) return;
    const [first, last] = this.pagesOf(position, length);
    for (let pgno = first; pgno <= last; pgno++) {
      if (!this.pending.delete(pgno)) continue;
      const copy = new Uint8Array(this.pageSize);
      this.readPage(pgno, copy);
      this.saved.set(pgno, copy);
      this.savedOnWrite++;
    }
  }

  wrote(position: number, length: number): void {
    if (position % this.pageSize !== 0 || length % this.pageSize !== 0) {
      this.lost ??= `a write of ${length} bytes at ${position} is not whole pages of ${this.pageSize}`;
      return;
    }
    const [first, last] = this.pagesOf(position, length);
    for (let pgno = first; pgno <= last; pgno++) {
      this.dirty.add(pgno);
      this.written.add(pgno);
    }
  }

  /** Counts pages 1..count as written (an image that is not on disk yet). */
  changed(count: number): void {
    for (let pgno = 1; pgno <= count; pgno++) {
      this.dirty.add(pgno);
      this.written.add(pgno);
    }
  }

  truncate(length: number): void {
    const last = Math.ceil(length / this.pageSize);
    if ([...this.pending].some((pgno) => pgno > last)) this.lost ??= 'the file was cut during a checkpoint';
    for (const set of [this.dirty, this.written]) for (const pgno of set) if (pgno > last) set.delete(pgno);
    // Pages past the end read as zeros from now on, wherever they were.
    if (this.base && this.base.size > length) this.base.size = length;
  }

  /** Starts a checkpoint's snapshot: the pages changed since the last one, in file order. */
  snapshot(): Uint32Array {
    // A typed array sorts numbers natively: half the time of a comparator over 20,000 pages, in
    // the turn that starts the checkpoint.
    const nums = Uint32Array.from(this.dirty).sort();
    this.pending = this.dirty;
    this.dirty = new Set();
    this.saved = new Map();
    return nums;
  }

  /** The snapshot's bytes of these pages (each copied once; call between turns). */
  copy(nums: ArrayLike<number>): Uint8Array[] {
    return Array.from(nums, (pgno) => {
      const page = new Uint8Array(this.pageSize);
      this.copyInto(pgno, page);
      return page;
    });
  }

  /**
   * Copies the snapshot's bytes of one page into `into` (page-size bytes, e.g. a slice of a reused
   * buffer): the bytes a copy on write kept, or the page as the in-memory file holds it. Once per
   * page and snapshot; between turns.
   */
  copyInto(pgno: number, into: Uint8Array): void {
    const kept = this.saved.get(pgno);
    if (kept) {
      this.saved.delete(pgno);
      into.set(kept);
      return;
    }
    this.pending.delete(pgno);
    this.readPage(pgno, into);
  }

  /** Ends the snapshot; `failed` pages (a checkpoint that did not finish) count as changed again. */
  release(failed?: Iterable<number>): void {
    this.pending = new Set();
    this.saved = new Map();
    for (const pgno of failed ?? []) this.dirty.add(pgno);
  }

  /** Forgets every change (a whole image of the database was just written). */
  reset(): void {
    this.release();
    this.dirty = new Set();
    this.lost = undefined;
  }

  /** Reads one page of the in-memory file as last written there. */
  readMemory(pgno: number, into: Uint8Array): void {
    this.readPage(pgno, into);
  }

  /** Whether a page was written since the open (the in-memory file holds it, not the base file). */
  writtenSinceOpen(pgno: number): boolean {
    return this.written.has(pgno);
  }

  /** Reads `count` pages of the base file from page `first` with one call (past its end: fewer). */
  readBase(first: number, count: number): Uint8Array {
    const base = this.base;
    if (!base) return new Uint8Array(0);
    const start = (first - 1) * this.pageSize;
    const end = Math.min(start + count * this.pageSize, base.size);
    const into = new Uint8Array(Math.max(0, end - start));
    readFully(base.fd, into, start);
    this.baseReads++;
    return into;
  }

  /** Whether every byte of [position, position + length) is in the base file, in pages not written since. */
  readsFromBase(position: number, length: number): boolean {
    if (!this.base || position + length > this.base.size) return false;
    const [first, last] = this.pagesOf(position, length);
    for (let pgno = first; pgno <= last; pgno++) if (this.written.has(pgno)) return false;
    return true;
  }

  /**
   * Fills what was just read at `position` into `into` from the base file, except the pages written
   * since the open (the in-memory file read them right).
   */
  fill(position: number, into: Uint8Array): void {
    const base = this.base;
    if (!base) return;
    const ps = this.pageSize;
    const end = Math.min(position + into.length, base.size);
    let at = position;
    while (at < end) {
      const pgno = Math.floor(at / ps) + 1;
      const pageEnd = Math.min(pgno * ps, end);
      if (!this.written.has(pgno)) {
        const ahead = at === (pgno - 1) * ps && pageEnd === pgno * ps ? this.prefetched.get(pgno) : undefined;
        if (ahead) into.set(ahead, at - position);
        else {
          readFully(base.fd, into.subarray(at - position, pageEnd - position), at);
          this.baseReads++;
        }
      }
      at = pageEnd;
    }
  }
}

function readFully(fd: number, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.length) {
    const n = fs.readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
}
