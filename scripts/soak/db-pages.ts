// Which tables and indexes a sqlite file's pages belong to (sql.js has no dbstat): every B-tree of
// sqlite_schema walked from its root page, its overflow chains included, and the free list. Given
// two files (the soak's `--probe` backups after warm-up and at the end) it prints what grew.
//
//   node --import tsx scripts/soak/db-pages.ts DIR/warm/svc.db DIR/end/svc.db

import { readFileSync } from 'node:fs';
import initSqlJs from 'sql.js';
import { readVarint } from '../../src/store/sqlite/engine/btree-pages.js';

interface Tree {
  name: string;
  table: string;
  pages: number;
  /** Rows of a table, entries of an index. */
  cells: number;
  /** Payload bytes of those cells (what the rows hold, before page overhead). */
  payload: number;
}

interface FileStats {
  pageSize: number;
  pages: number;
  free: number;
  trees: Map<string, Tree>;
  /** The events table by event type: count and body bytes. */
  events: Map<string, { count: number; bytes: number }>;
}

async function statsOf(file: string): Promise<FileStats> {
  const bytes = readFileSync(file);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const raw = view.getUint16(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const usable = pageSize - bytes[20]!;
  const pages = view.getUint32(28);
  const free = view.getUint32(36);
  const SQL = await initSqlJs();
  const db = new SQL.Database(bytes);
  const schema = db.exec('SELECT name, tbl_name, rootpage FROM sqlite_schema WHERE rootpage > 0')[0]?.values ?? [];
  const events = new Map<string, { count: number; bytes: number }>();
  const byType = db.exec("SELECT json_extract(body, '$.type'), count(*), sum(length(body)) FROM events GROUP BY 1")[0]?.values ?? [];
  for (const [type, count, bytes] of byType) events.set(String(type), { count: Number(count), bytes: Number(bytes) });
  db.close();
  const pageAt = (n: number) => bytes.subarray((n - 1) * pageSize, n * pageSize);
  const trees = new Map<string, Tree>();
  for (const [name, table, root] of schema) {
    const t: Tree = { name: String(name), table: String(table), pages: 0, cells: 0, payload: 0 };
    trees.set(t.name, t);
    const overflow = (page: Uint8Array, at: number, p: number, index: boolean) => {
      const x = index ? Math.floor(((usable - 12) * 64) / 255) - 23 : usable - 35;
      if (p <= x) return;
      const m = Math.floor(((usable - 12) * 32) / 255) - 23;
      const k = m + ((p - m) % (usable - 4));
      const local = k <= x ? k : m;
      let next = new DataView(page.buffer, page.byteOffset).getUint32(at + local);
      while (next !== 0) {
        t.pages++;
        next = new DataView(bytes.buffer, bytes.byteOffset + (next - 1) * pageSize).getUint32(0);
      }
    };
    const walk = (pgno: number) => {
      t.pages++;
      const page = pageAt(pgno);
      const pv = new DataView(page.buffer, page.byteOffset, page.byteLength);
      const h = pgno === 1 ? 100 : 0;
      const type = page[h]!;
      const interior = type === 0x02 || type === 0x05;
      const cells = pv.getUint16(h + 3);
      const ptrs = h + (interior ? 12 : 8);
      for (let i = 0; i < cells; i++) {
        let at = pv.getUint16(ptrs + 2 * i);
        if (interior) {
          walk(pv.getUint32(at));
          at += 4;
          if (type === 0x05) continue;
        }
        const p = readVarint(page, at);
        at = p.next;
        if (type === 0x0d) at = readVarint(page, at).next;
        overflow(page, at, p.value, type !== 0x0d);
        // An index keeps entries on its interior pages too; a table only keys.
        t.cells++;
        t.payload += p.value;
      }
      if (interior) walk(pv.getUint32(h + 8));
    };
    walk(Number(root));
  }
  return { pageSize, pages, free, trees, events };
}

/** The events table by type, what grew first. */
function printEvents(last: FileStats, before: FileStats | undefined): void {
  console.log(
    `\n${'event type'.padEnd(40)} ${'MiB'.padStart(8)} ${'grew MiB'.padStart(8)} ${'events'.padStart(9)} ${'grew'.padStart(9)} ${'B/event'.padStart(14)}`,
  );
  const grew = (type: string) => (last.events.get(type)?.bytes ?? 0) - (before?.events.get(type)?.bytes ?? 0);
  for (const [type, e] of [...last.events].sort((x, y) => grew(y[0]) - grew(x[0]))) {
    const was = before?.events.get(type);
    console.log(
      `${type.padEnd(40)} ${mb(e.bytes)} ${mb(grew(type))} ${String(e.count).padStart(9)} ${String(e.count - (was?.count ?? 0)).padStart(9)} ${(e.bytes / e.count).toFixed(0).padStart(14)}`,
    );
  }
}

const mb = (b: number) => (b / 1048576).toFixed(2).padStart(8);

async function main(): Promise<void> {
  const files = process.argv.slice(2);
  if (files.length < 1 || files.length > 2) throw new Error('usage: db-pages.ts FILE [LATER_FILE]');
  const [a, b] = await Promise.all(files.map(statsOf));
  const first = a!;
  const last = b ?? first;
  const before = b ? first : undefined;
  const pagesOf = (s: FileStats | undefined, name: string) => s?.trees.get(name)?.pages ?? 0;
  console.log(
    `page size ${last.pageSize}; pages ${before ? `${before.pages} -> ` : ''}${last.pages} (${mb(last.pages * last.pageSize).trim()} MiB), free ${before ? `${before.free} -> ` : ''}${last.free}`,
  );
  console.log(
    `${'tree'.padEnd(40)} ${'MiB'.padStart(8)} ${'grew MiB'.padStart(8)} ${'cells'.padStart(9)} ${'grew'.padStart(9)} ${'payload B/cell'.padStart(14)}`,
  );
  const rows = [...last.trees.values()].sort(
    (x, y) => y.pages - pagesOf(before, y.name) - (x.pages - pagesOf(before, x.name)) || y.pages - x.pages,
  );
  for (const t of rows) {
    const was = before?.trees.get(t.name);
    // Empty trees and those that neither grew nor hold much say nothing.
    if (t.cells === 0 || (t.pages === (was?.pages ?? 0) && t.pages < 16)) continue;
    console.log(
      `${t.name.slice(0, 40).padEnd(40)} ${mb(t.pages * last.pageSize)} ${mb((t.pages - (was?.pages ?? 0)) * last.pageSize)} ${String(t.cells).padStart(9)} ${String(t.cells - (was?.cells ?? 0)).padStart(9)} ${(t.cells ? t.payload / t.cells : 0).toFixed(0).padStart(14)}`,
    );
  }
  printEvents(last, before);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
