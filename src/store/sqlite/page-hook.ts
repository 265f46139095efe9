// Which pages of a database sql.js has written since the last checkpoint, with their bytes.
//
// sql.js keeps each database as a file in an in-memory file system it does not expose, and its only
// way out is `export()`: a synchronous copy of the whole file. SQLite itself writes pages through
// lseek + write calls that the wasm module imports from JavaScript, so wrapping those imports when
// the module is instantiated shows every byte written to a database file. A PageTracker keeps a copy
// of each page changed since the last checkpoint, which then writes only those (checkpoint.ts).
//
// The import names are minified and belong to one sql.js build: KNOWN_BUILDS names them for the
// builds this svc was tested with, and a self-test at load checks the hook sees a known write. On any
// other build the hook stays off and checkpoints write whole images, as before it existed.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The imports (by their minified names) SQLite's file writes go through. */
interface ImportNames {
  /** __syscall_openat(dirfd, path, flags, varargs) -> fd */
  openat: string;
  /** fd_seek(fd, offset: bigint, whence, newOffsetPtr) -> errno */
  seek: string;
  /** fd_write(fd, iovs, iovsLen, nwrittenPtr) -> errno */
  write: string;
  /** __syscall_ftruncate64(fd, length: bigint) -> errno */
  truncate: string;
}

const KNOWN_BUILDS: Record<string, ImportNames> = {
  '1.16.0': { openat: 'x', seek: 'E', write: 'q', truncate: 'J' },
};

type ImportFn = (...args: never[]) => unknown;

// The few WebAssembly shapes used here (the project's TypeScript libs do not declare them).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmInstance {
  readonly exports: Record<string, unknown>;
}
interface WasmApi {
  Memory: abstract new (...args: never[]) => WasmMemory;
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: WasmInstance }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The copies of the pages written to one database file since they were last taken. */
export class PageTracker {
  private pages = new Map<number, Uint8Array>();
  /** Set when a write did not cover whole pages: the next checkpoint must write a whole image. */
  lost: string | undefined;

  constructor(readonly pageSize: number) {}

  /** Pages changed since the last take(). */
  get size(): number {
    return this.pages.size;
  }

  record(position: number, bytes: Uint8Array): void {
    const ps = this.pageSize;
    if (position % ps !== 0 || bytes.length % ps !== 0) {
      this.lost ??= `a write of ${bytes.length} bytes at ${position} is not whole pages of ${ps}`;
      return;
    }
    for (let at = 0; at < bytes.length; at += ps) {
      const pgno = (position + at) / ps + 1;
      const page = bytes.subarray(at, at + ps);
      const kept = this.pages.get(pgno);
      if (kept) kept.set(page);
      else this.pages.set(pgno, page.slice());
    }
  }

  truncate(length: number): void {
    const last = Math.ceil(length / this.pageSize);
    for (const pgno of this.pages.keys()) if (pgno > last) this.pages.delete(pgno);
  }

  /** Hands over the changed pages (page number -> bytes, never written to again) and starts afresh. */
  take(): Map<number, Uint8Array> {
    const taken = this.pages;
    this.pages = new Map();
    return taken;
  }

  /** Gives back pages a failed checkpoint took; pages written since keep their newer bytes. */
  putBack(taken: Map<number, Uint8Array>): void {
    for (const [pgno, page] of taken) if (!this.pages.has(pgno)) this.pages.set(pgno, page);
  }
}

/** The wrapped file-system imports of one sql.js module instance (one per thread). */
class FileWrites {
  private memory: WasmMemory | undefined;
  private bytes = new Uint8Array(0);
  private readonly fdFile = new Map<number, string>();
  private readonly fdPosition = new Map<number, number>();
  private readonly trackers = new Map<string, PageTracker>();

  /** Replaces the imports SQLite writes through with ones that also report to trackers. */
  wrap(imports: Record<string, ImportFn>, names: ImportNames): void {
    const openat = imports[names.openat] as (dirfd: number, p: number, flags: number, va: number) => number;
    const seek = imports[names.seek] as (fd: number, off: bigint, whence: number, out: number) => number;
    const write = imports[names.write] as (fd: number, iovs: number, n: number, out: number) => number;
    const truncate = imports[names.truncate] as (fd: number, len: bigint) => number;
    imports[names.openat] = ((dirfd: number, p: number, flags: number, va: number) => {
      const fd = openat(dirfd, p, flags, va);
      if (fd >= 0) {
        this.fdFile.set(fd, path.posix.basename(this.cString(p)));
        this.fdPosition.set(fd, 0);
      }
      return fd;
    }) as ImportFn;
    imports[names.seek] = ((fd: number, off: bigint, whence: number, out: number) => {
      const r = seek(fd, off, whence, out);
      if (r === 0) this.fdPosition.set(fd, Number(new DataView(this.heap().buffer).getBigInt64(out, true)));
      return r;
    }) as ImportFn;
    imports[names.write] = ((fd: number, iovs: number, n: number, out: number) => {
      const r = write(fd, iovs, n, out);
      const tracker = this.trackers.get(this.fdFile.get(fd) ?? '');
      if (r === 0 && tracker) this.written(tracker, fd, iovs, n, out);
      return r;
    }) as ImportFn;
    imports[names.truncate] = ((fd: number, len: bigint) => {
      const r = truncate(fd, len);
      if (r === 0) this.trackers.get(this.fdFile.get(fd) ?? '')?.truncate(Number(len));
      return r;
    }) as ImportFn;
  }

  attach(exports: Record<string, unknown>): void {
    this.memory = Object.values(exports).find((v): v is WasmMemory => v instanceof wasmApi.Memory);
  }

  track(file: string, tracker: PageTracker): void {
    this.trackers.set(file, tracker);
  }

  untrack(file: string): void {
    this.trackers.delete(file);
  }

  private written(tracker: PageTracker, fd: number, iovs: number, n: number, out: number): void {
    const heap = this.heap();
    const view = new DataView(heap.buffer);
    let left = view.getUint32(out, true);
    let position = this.fdPosition.get(fd) ?? 0;
    for (let k = 0; k < n && left > 0; k++) {
      const ptr = view.getUint32(iovs + 8 * k, true);
      const len = Math.min(view.getUint32(iovs + 8 * k + 4, true), left);
      tracker.record(position, heap.subarray(ptr, ptr + len));
      position += len;
      left -= len;
    }
    this.fdPosition.set(fd, position);
  }

  /** The wasm memory as bytes (its buffer is replaced whenever the memory grows). */
  private heap(): Uint8Array {
    const buffer = this.memory!.buffer;
    if (this.bytes.buffer !== buffer) this.bytes = new Uint8Array(buffer);
    return this.bytes;
  }

  private cString(ptr: number): string {
    const heap = this.heap();
    const end = heap.indexOf(0, ptr);
    return Buffer.from(heap.subarray(ptr, end < 0 ? ptr : end)).toString('utf8');
  }
}

const fileWrites = new FileWrites();
let hooked = false;

/** The import names of the installed sql.js build, if the hook knows them. */
function knownBuild(): ImportNames | undefined {
  // The package exports no ./package.json: it is found beside the wasm file's folder.
  const wasm = createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
  const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(wasm), '..', 'package.json'), 'utf8')) as { version?: string };
  return KNOWN_BUILDS[pkg.version ?? ''];
}

/**
 * The `instantiateWasm` option for initSqlJs: instantiates the module with its file writes wrapped
 * (when the build is known; otherwise unwrapped, and pageTracking() stays off).
 */
export function instantiateWithHook(wasm: Promise<Uint8Array>) {
  return (info: Record<string, unknown>, receive: (instance: WasmInstance) => void): object => {
    const names = knownBuild();
    const env = Object.values(info)[0] as Record<string, ImportFn> | undefined;
    if (names && env && Object.keys(info).length === 1 && [names.openat, names.seek, names.write, names.truncate].every((n) => typeof env[n] === 'function')) {
      fileWrites.wrap(env, names);
      hooked = true;
    }
    void wasm.then(async (bytes) => {
      const { instance } = await wasmApi.instantiate(bytes, info);
      fileWrites.attach(instance.exports);
      receive(instance);
    });
    return {};
  };
}

/** The database handle the hook identifies a file by (sql.js names each database's file). */
interface NamedDatabase {
  filename?: string;
  run(sql: string): unknown;
  exec(sql: string): { values: unknown[][] }[];
}

/**
 * Starts tracking the pages written to `db`'s file; undefined when the hook is off or does not see
 * writes as it should. Call before the first write: pages written earlier are not seen.
 */
export function trackPages(db: NamedDatabase): PageTracker | undefined {
  if (!hooked || !db.filename) return undefined;
  const pageSize = Number(db.exec('PRAGMA page_size')[0]?.values[0]?.[0] ?? 0);
  if (!(pageSize > 0)) return undefined;
  const tracker = new PageTracker(pageSize);
  fileWrites.track(db.filename, tracker);
  return tracker;
}

export function untrackPages(db: NamedDatabase): void {
  if (db.filename) fileWrites.untrack(db.filename);
}

/**
 * Whether tracking works on this build: a probe database written once must show its header page and
 * the probe row among the tracked pages. Run once per thread after loading sql.js.
 */
export function probeTracking(open: () => NamedDatabase & { close(): void }): string | undefined {
  if (!hooked) return 'the installed sql.js build is not one the page hook knows';
  const db = open();
  try {
    const tracker = trackPages(db);
    if (!tracker) return 'the page hook is not installed';
    const marker = 'svc-page-hook-probe';
    db.run(`CREATE TABLE probe (x TEXT); INSERT INTO probe VALUES ('${marker}')`);
    const pages = [...tracker.take().values()];
    const header = pages.some((p) => Buffer.from(p.subarray(0, 16)).toString('latin1') === 'SQLite format 3\0');
    const row = pages.some((p) => Buffer.from(p).includes(marker));
    if (tracker.lost) return tracker.lost;
    return header && row ? undefined : 'the page hook did not see the probe write';
  } finally {
    untrackPages(db);
    db.close();
  }
}
