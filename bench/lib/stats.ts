// Numbers for the report: percentiles of latency samples, rounding, a growable sample buffer.

/** Latency samples in milliseconds, kept in a growable Float64Array (millions stay cheap). */
export class Samples {
  private data = new Float64Array(1024);
  private n = 0;

  push(ms: number): void {
    if (this.n === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.n++] = ms;
  }

  get count(): number {
    return this.n;
  }

  /** Adds every sample of `other`. */
  merge(values: ArrayLike<number>): void {
    for (let i = 0; i < values.length; i++) this.push(values[i]!);
  }

  values(): Float64Array {
    return this.data.subarray(0, this.n);
  }

  /** p50/p99/max in ms (null when empty). */
  summary(): { p50_ms: number | null; p99_ms: number | null; max_ms: number | null } {
    if (this.n === 0) return { p50_ms: null, p99_ms: null, max_ms: null };
    const sorted = Float64Array.from(this.values()).sort();
    return { p50_ms: round(quantile(sorted, 0.5)), p99_ms: round(quantile(sorted, 0.99)), max_ms: round(sorted[sorted.length - 1]!) };
  }
}

/** The q-quantile of ascending-sorted values (nearest rank). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

/** Rounds to 3 significant decimals for ms values, whole numbers above 100. */
export function round(x: number): number {
  if (!Number.isFinite(x)) return x;
  if (Math.abs(x) >= 100) return Math.round(x);
  if (Math.abs(x) >= 10) return Math.round(x * 10) / 10;
  return Math.round(x * 1000) / 1000;
}

/** Monotonic time in ms, comparable across processes on one machine (CLOCK_MONOTONIC). */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
