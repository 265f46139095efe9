// Which pages of a table a read will touch, worked out from the table's B-tree before sqlite reads
// it, and how to read them with few system calls (pure: page bytes in, page numbers out). The
// prefetch (prefetch.ts) uses it for history pages: rows found by rowid in an index are scattered
// over leaf pages that, after a restart, are read from `svc.db` one system call each on demand.

/** One interior page of a table B-tree: child i holds the rowids <= keys[i]; `right` the rest. */
export interface InteriorPage {
  keys: number[];
  children: number[];
  right: number;
}

/** Page type byte of an interior page of a table B-tree (sqlite's file format, 1.6). */
const INTERIOR_TABLE = 0x05;

/** Reads a varint at `at` (sqlite's: big-endian 7-bit groups, the ninth byte whole). */
export function readVarint(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const b = bytes[at + i]!;
    value = value * 128 + (b & 0x7f);
    if (b < 0x80) return { value, next: at + i + 1 };
  }
  return { value: value * 256 + bytes[at + 8]!, next: at + 9 };
}

/**
 * Parses an interior table page (`page` is one whole page; page 1 has its header after the
 * 100-byte file header); undefined for any other kind of page (a leaf: the descent ends there).
 */
export function parseInterior(page: Uint8Array, pgno: number): InteriorPage | undefined {
  const h = pgno === 1 ? 100 : 0;
  if (page[h] !== INTERIOR_TABLE) return undefined;
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const cells = view.getUint16(h + 3);
  const right = view.getUint32(h + 8);
  const keys: number[] = [];
  const children: number[] = [];
  for (let i = 0; i < cells; i++) {
    const at = view.getUint16(h + 12 + 2 * i);
    children.push(view.getUint32(at));
    keys.push(readVarint(page, at + 4).value);
  }
  return { keys, children, right };
}

/** The child page an interior page sends `rowid` to. */
export function childFor(node: InteriorPage, rowid: number): number {
  // Keys ascend: the first key >= rowid names the child.
  let lo = 0;
  let hi = node.keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (node.keys[mid]! < rowid) lo = mid + 1;
    else hi = mid;
  }
  return lo < node.children.length ? node.children[lo]! : node.right;
}

/** A run of pages read with one call: pages first .. first + count - 1. */
export interface PageRange {
  first: number;
  count: number;
}

/**
 * Groups page numbers into runs read with one call each: pages at most `maxGap` apart share a run
 * (the pages in between are read too: a few KiB cost less than a system call), and no run is
 * longer than `maxRun` pages. Duplicates are read once; the input need not be sorted.
 */
export function readRanges(pages: readonly number[], maxGap: number, maxRun: number): PageRange[] {
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  const out: PageRange[] = [];
  let cur: PageRange | undefined;
  for (const p of sorted) {
    if (cur && p - (cur.first + cur.count - 1) <= maxGap + 1 && p - cur.first + 1 <= maxRun) {
      cur.count = p - cur.first + 1;
      continue;
    }
    cur = { first: p, count: 1 };
    out.push(cur);
  }
  return out;
}
