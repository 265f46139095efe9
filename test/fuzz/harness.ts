// How the fuzz suites run a property: with a fixed seed in `npm test`, with a random one under
// `npm run fuzz`, or replaying one counterexample (SVC_FUZZ_SEED + SVC_FUZZ_PATH, fast-check's
// seed/path replay). Every failure is written to test/.artifacts/fuzz-failures/<suite>-<seed>.json
// (seed, path, counterexample, error, the command that replays it) before the test fails, so a
// failure seen once under load can be replayed later.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';

/** The fixed seed of `npm test`. */
export const DEFAULT_SEED = 20261124;
/** Where failures are written (SVC_FUZZ_FAILURES_DIR moves it, for the harness's own test). */
export const failuresDir = (): string =>
  process.env.SVC_FUZZ_FAILURES_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../.artifacts/fuzz-failures');

export interface FuzzRun {
  seed: number;
  numRuns: number;
  /** Set when replaying one counterexample. */
  path?: string;
}

/** The seed, runs and replay path from the environment (FUZZ_SEED / FUZZ_RUNS are older names). */
export function fuzzRun(defaultRuns: number, env: NodeJS.ProcessEnv = process.env): FuzzRun {
  const given = env.SVC_FUZZ_SEED ?? env.FUZZ_SEED;
  const seed =
    given === undefined || given === '' ? DEFAULT_SEED : given === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(given);
  if (!Number.isInteger(seed)) throw new Error(`SVC_FUZZ_SEED must be an integer or "random", not ${given}`);
  const runs = Number(env.SVC_FUZZ_RUNS ?? defaultRuns);
  if (!(runs >= 1)) throw new Error(`SVC_FUZZ_RUNS must be a positive number, not ${env.SVC_FUZZ_RUNS}`);
  const replay = env.SVC_FUZZ_PATH;
  return { seed, numRuns: Math.floor(runs), ...(replay ? { path: replay } : {}) };
}

/** The file a failure of `suite` with `seed` is written to. */
export const failureFile = (suite: string, seed: number): string => path.join(failuresDir(), `${suite}-${seed}.json`);

/** Checks an async property; on failure writes the counterexample file, then throws fast-check's report. */
export async function fuzzCheck<Ts>(suite: string, file: string, property: fc.IAsyncProperty<Ts>, run: FuzzRun): Promise<void> {
  const details = await fc.check(property, {
    seed: run.seed,
    numRuns: run.numRuns,
    ...(run.path ? { path: run.path } : {}),
    // Shrinking restarts the server's inputs many times over on a loaded machine; the first
    // counterexample and its path are kept instead, and replay exactly.
    endOnFailure: true,
    includeErrorInReport: true,
  });
  if (!details.failed) return;
  const record = {
    suite,
    seed: details.seed,
    path: details.counterexamplePath,
    counterexample: safeJson(details.counterexample),
    error: String((details.errorInstance as Error | undefined)?.stack ?? details.errorInstance ?? 'interrupted'),
    replay: `SVC_FUZZ_SEED=${details.seed} SVC_FUZZ_PATH=${details.counterexamplePath ?? ''} node --import tsx ${file}`,
    at: new Date().toISOString(),
  };
  const out = failureFile(suite, details.seed);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(record, null, 2)}\n`);
  throw new Error(
    `${fc.defaultReportMessage(details) ?? 'the property failed'}\ncounterexample written to ${out}\nreplay: ${record.replay}`,
  );
}

/** A counterexample as JSON (Buffers as latin1 text, anything else by fast-check's printer). */
function safeJson(value: unknown): unknown {
  try {
    return JSON.parse(
      JSON.stringify(value, (_k, v) =>
        v && typeof v === 'object' && v.type === 'Buffer' && Array.isArray(v.data)
          ? { buffer_latin1: Buffer.from(v.data).toString('latin1') }
          : v,
      ),
    );
  } catch {
    return fc.stringify(value);
  }
}
