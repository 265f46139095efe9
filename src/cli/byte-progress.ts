// The progress bar of a file transfer on a terminal (`svc send --file`, `svc files get`): drawn on
// stderr with \r, at most ten times a second, only for files large enough to take a moment, never
// when stderr is not a terminal (a pipe or a log gets nothing but the result line).

/** Below this a transfer is over before a bar would say anything. */
export const BAR_FROM_BYTES = 1024 * 1024;

/** A byte count as people read it: `512 B`, `3.4 KiB`, `12.0 MiB`, `1.2 GiB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

/** One line of the bar: `name [####......] 3.0 MiB/10.0 MiB 30%, 1.5 MiB/s`. */
export function byteProgressLine(label: string, done: number, total: number | undefined, elapsedMs: number, width = 24): string {
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  if (total === undefined || total <= 0) return `${label} ${formatBytes(done)}, ${formatBytes(rate)}/s`;
  const frac = Math.min(1, done / total);
  const filled = Math.round(frac * width);
  return `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${formatBytes(done)}/${formatBytes(total)} ${Math.floor(frac * 100)}%, ${formatBytes(rate)}/s`;
}

/** A bar on `stderr` for one transfer, or nothing when it is not a terminal or the file is small. */
export function byteProgress(
  stderr: NodeJS.WriteStream,
  label: string,
  total: number | undefined,
): { update: (done: number, total: number | undefined) => void; finish: () => void } {
  if (!stderr.isTTY || (total !== undefined && total < BAR_FROM_BYTES)) return { update: () => {}, finish: () => {} };
  const started = Date.now();
  let last = 0;
  let drawn = false;
  let line = '';
  const draw = (done: number, t: number | undefined) => {
    line = byteProgressLine(label, done, t, Date.now() - started);
    stderr.write(`\r${line}`);
    drawn = true;
  };
  return {
    update: (done, t) => {
      const now = Date.now();
      if (now - last < 100 && done !== t) return;
      last = now;
      draw(done, t);
    },
    finish: () => {
      if (drawn) stderr.write('\n');
    },
  };
}
