// The search database's file (`<store>.search`) as the search worker keeps it, with the store
// engine's page hook and redo file (engine/README.md): opened for reads on demand, so the index is
// not loaded whole, and written back as the pages changed since the last write, so a write costs
// what was indexed since, not the index's size. Until 2026-12-01 the worker loaded the whole file
// and wrote it with export() every few seconds: at a million messages a 142 MB copy and file each
// time, taking a core from the ingest, and the whole index in resident memory twice over at peak.
// Where the page hook is off (a sql.js build it does not know), the file is loaded and written
// whole, as before.

import fs from 'node:fs';
import type { Database, SqlJsStatic } from 'sql.js';
import { newImage, openImage, pageSizeOf } from './engine/image.js';
import { pagesPath, writeExport, writeTrackedPages } from './engine/page-file.js';
import { canTrackPages, trackPages, untrackPages, type PageTracker } from './engine/page-hook.js';

/** `SQL` below is always this thread's `loadSql()`: the module the page hook is installed in. */
export class SearchFile {
  private constructor(
    readonly raw: Database,
    private readonly pages: PageTracker | undefined,
    /** Pages not written since the open are read from the file when sqlite asks for them. */
    readonly onDemand: boolean,
  ) {}

  /**
   * The database `file` holds (undefined: there is none), after finishing a write a crash
   * interrupted. Throws when the file cannot be opened; a redo file that cannot be finished is
   * removed first, so that the file built instead is not overwritten by it at the next open.
   */
  static async open(SQL: SqlJsStatic, file: string): Promise<SearchFile | undefined> {
    const track = canTrackPages();
    let opened: Awaited<ReturnType<typeof openImage>>;
    try {
      opened = await openImage(file, track);
    } catch (err) {
      fs.rmSync(pagesPath(file), { force: true });
      throw err;
    }
    if (!opened) return undefined;
    const raw = new SQL.Database(opened.data);
    const base = opened.kind === 'lazy' ? { fd: opened.fd, size: opened.size } : undefined;
    return new SearchFile(raw, track ? trackPages(raw, opened.pageSize, base) : undefined, base !== undefined);
  }

  /** A new database made by `schema`; nothing of it is on disk until its first write puts all of it there. */
  static empty(SQL: SqlJsStatic, schema: string): SearchFile {
    const seed = new SQL.Database();
    let image: Uint8Array;
    try {
      seed.run(schema);
      image = seed.export();
    } finally {
      seed.close();
    }
    if (!canTrackPages()) return new SearchFile(new SQL.Database(image), undefined, false);
    // With headroom, as a new store's database: sql.js grows a full in-memory file by copying it.
    const raw = new SQL.Database(newImage(image));
    const pageSize = pageSizeOf(image);
    const pages = trackPages(raw, pageSize);
    pages?.changed(image.length / pageSize);
    return new SearchFile(raw, pages, false);
  }

  /**
   * Writes the database to `file` durably: the pages changed since the last write through a redo
   * file (all of them the first time, into a new file renamed over the old), or without page
   * tracking an export of the whole (sql.js then reopens the database: `reopened` makes its
   * statements and settings again). Writes may go on meanwhile: copy on write keeps what it started with.
   */
  async write(file: string, reopened: () => void): Promise<void> {
    const pages = this.pages;
    if (pages && !pages.lost) {
      const pageCount = Number(this.raw.exec('PRAGMA page_count')[0]?.values[0]?.[0] ?? 0);
      return writeTrackedPages(file, pages, pageCount);
    }
    // An export reads the in-memory file, which holds no page read on demand.
    if (this.onDemand) throw new Error(`the search file's pages are no longer tracked (${pages?.lost})`);
    const image = this.raw.export();
    reopened();
    await writeExport(file, image, pages, 'a whole write of the search file failed');
  }

  /** Stops tracking and closes the database (`closeDb`: its owner's close, which frees its statements first). */
  close(closeDb: () => void = () => this.raw.close()): void {
    untrackPages(this.raw);
    closeDb();
  }
}
