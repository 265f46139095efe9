// "Did you mean": the closest of a few known ids to one that is not known (a typo in `--as`,
// `--agent` or an `@mention`), and the edit distance behind it (svc.yaml's unknown keys use it too).
// Pure.

/** Edit distance of two short strings (ids are at most 64 characters; config keys are shorter). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The closest of `ids` to `id` when it is close enough to be a typo (at most 2 edits, fewer than half its length). */
export function closestId(id: string, ids: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of ids) {
    if (c === id) continue;
    const d = editDistance(id.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best !== undefined && bestD <= 2 && bestD * 2 < id.length ? best : undefined;
}
