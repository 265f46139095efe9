// Per-minute statistics: the current minute collects, the closed ones are kept for the report.

export interface Minute {
  sends: number;
  reads: number;
  errors: number;
  sendMs: number[];
  readMs: number[];
  lagMs: number[];
  events: number;
  reconnects: number;
  /** The median of the resident set sampled every 5 s (one sample is as noisy as an allocator's last growth). */
  rss: number;
  rssSamples: number[];
  /**
   * The median of the resident set outside V8's heap (resident minus the heap V8 has committed):
   * code, WASM (sql.js's database), buffers, sockets. V8 sizes its committed heap by its own
   * heuristics (116 to 250 MiB over ~80 MiB in use, minute to minute), so the resident set moves
   * with them; what outside the heap and what in the heap survives collections are what can leak.
   */
  native: number;
  nativeSamples: number[];
  /** The heap V8 had committed, last sampled. */
  heapTotal: number;
  /** The size of the store's data (svc_store_data_bytes), last sampled. */
  data: number;
  /** Lowest JS heap in use seen this minute (after collections), and WASM/Buffer memory. */
  heapLow: number;
  external: number;
  storedBytes: number;
  /** `message.receipts` events the first observer was sent, and their bytes (the store keeps each). */
  receiptEvents: number;
  receiptBytes: number;
}

export const minutes: Minute[] = [];
const newMinute = (): Minute => ({
  sends: 0,
  reads: 0,
  errors: 0,
  sendMs: [],
  readMs: [],
  lagMs: [],
  events: 0,
  reconnects: 0,
  rss: 0,
  rssSamples: [],
  native: 0,
  nativeSamples: [],
  heapTotal: 0,
  data: 0,
  heapLow: Infinity,
  external: 0,
  storedBytes: 0,
  receiptEvents: 0,
  receiptBytes: 0,
});
export let cur = newMinute();
export const errorSamples: string[] = [];
export function error(what: string): void {
  cur.errors++;
  if (errorSamples.length < 20) errorSamples.push(what);
}

export function p99(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]!;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Closes the current minute (kept in `minutes`) and starts the next; returns the closed one. */
export function closeMinute(): Minute {
  const m = cur;
  m.rss = median(m.rssSamples);
  m.native = median(m.nativeSamples);
  minutes.push(m);
  cur = newMinute();
  return m;
}
