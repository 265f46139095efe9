// Prefetch of a history page's rows: the leaf pages holding the rows an index scan found (by
// rowid) are worked out from the table's B-tree (btree-pages.ts) and read from `svc.db` in runs,
// one system call per run, before sqlite reads them one page (and one call) at a time on demand.
// Only pages not written since the open are read ahead (the in-memory file holds the others), and
// only when runs save calls: rows of one conversation written in bursts share pages and runs;
// rows spread thin (conversations interleaved row by row) do not, and are left to on-demand reads.

import { childFor, parseInterior, readRanges, type InteriorPage, type PageRange } from './btree-pages.js';
import type { PageTracker } from './page-tracker.js';

/** Pages at most this far apart are read in one run (the pages between come along). */
const MAX_GAP = 3;
/** Longest run read with one call, in pages (256 KiB of 4 KiB pages). */
const MAX_RUN = 64;
/** Interior pages kept parsed (of the table's few hundred at a million rows). */
const INTERIOR_CACHE = 4096;
/** Deepest descent followed (a table of 2^40 rows is 5 levels deep). */
const MAX_DEPTH = 12;
/** Descents between checks of the tree's depth (a root split adds a level). */
const RECHECK_DEPTH = 256;

/** Runs worth reading ahead for these leaf pages: only when they take fewer calls than the pages would. */
export function prefetchPlan(leaves: readonly number[]): PageRange[] {
  const unique = new Set(leaves).size;
  const ranges = readRanges(leaves, MAX_GAP, MAX_RUN);
  // A run per page saves nothing over reading on demand, and costs the walk.
  return ranges.length * 4 <= unique * 3 ? ranges : [];
}

export class Prefetch {
  /** Parsed interior pages not written since the open (their bytes in `svc.db` do not change). */
  private readonly interior = new Map<number, InteriorPage>();
  /** Levels from the root to the leaves (every leaf of a B-tree is as deep), once seen. */
  private leafDepth: number | undefined;
  private descents = 0;
  /** Pages read ahead since the open (tests and the engine report look). */
  pagesRead = 0;

  constructor(
    private readonly tracker: PageTracker,
    /** The root page of the table read (from sqlite_master). */
    private readonly root: () => number | undefined,
  ) {}

  /** Reads ahead the leaf pages holding these rowids, where that saves calls; `release` after the read. */
  rows(rowids: readonly number[]): void {
    if (!this.tracker.base || rowids.length < 2) return;
    const root = this.root();
    if (root === undefined) return;
    const leaves: number[] = [];
    // Interior pages written since the open, read once for this call (they may change after it).
    const fresh = new Map<number, InteriorPage | undefined>();
    for (const rowid of rowids) {
      const leaf = this.leafOf(root, rowid, fresh);
      if (leaf !== undefined && !this.tracker.writtenSinceOpen(leaf)) leaves.push(leaf);
    }
    const ps = this.tracker.pageSize;
    for (const r of prefetchPlan(leaves)) {
      const bytes = this.tracker.readBase(r.first, r.count);
      for (let k = 0; k < r.count && (k + 1) * ps <= bytes.length; k++) {
        const pgno = r.first + k;
        if (!this.tracker.writtenSinceOpen(pgno)) this.tracker.prefetched.set(pgno, bytes.subarray(k * ps, (k + 1) * ps));
      }
      this.pagesRead += r.count;
    }
  }

  /** Drops what was read ahead (the read it was for is done). */
  release(): void {
    this.tracker.prefetched.clear();
  }

  /**
   * The leaf page of `rowid`. Interior pages written since the open are read from the in-memory
   * file (as last committed: a hint, right for the old rows a prefetch is for); the leaf itself is
   * not read: the walk stops at the depth of the leaves.
   */
  private leafOf(root: number, rowid: number, fresh: Map<number, InteriorPage | undefined>): number | undefined {
    if (this.descents++ % RECHECK_DEPTH === 0) this.leafDepth = undefined;
    let pgno = root;
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      if (depth === this.leafDepth) return pgno;
      const node = this.node(pgno, fresh);
      if (!node) {
        this.leafDepth = depth;
        return pgno;
      }
      pgno = childFor(node, rowid);
    }
    return undefined;
  }

  private node(pgno: number, fresh: Map<number, InteriorPage | undefined>): InteriorPage | undefined {
    if (this.tracker.writtenSinceOpen(pgno)) {
      if (fresh.has(pgno)) return fresh.get(pgno);
      const page = new Uint8Array(this.tracker.pageSize);
      this.tracker.readMemory(pgno, page);
      const node = parseInterior(page, pgno);
      fresh.set(pgno, node);
      return node;
    }
    let node = this.interior.get(pgno);
    if (!node) {
      node = parseInterior(this.tracker.readBase(pgno, 1), pgno);
      if (!node) return undefined;
      if (this.interior.size >= INTERIOR_CACHE) this.interior.clear();
      this.interior.set(pgno, node);
    }
    return node;
  }
}
