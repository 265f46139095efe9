// What every part of a run shares: the results being filled, the sizes, the temp folder, logging
// and notes, and the helpers that turn a failed step into a note (and a failed run).

import type { Results } from './report.js';
import type { Sizes } from './sizes.js';
import type { Target } from './targets.js';

/** Starts a fresh target of one side in a folder of its own (null when it failed to start). */
export type Start = () => Promise<Target | null>;

export interface RunContext {
  results: Results;
  sizes: Sizes;
  reps: number;
  tmp: string;
  log(m: string): void;
  /** A note on the whole run. */
  note(m: string): void;
  /** A note on one section of the results (its `note` field). */
  noteOn(section: { note?: string }, m: string): void;
  /** Runs one step; a failure becomes a note, fails the run, and gives null. */
  step<T>(what: string, fn: () => Promise<T>, onError?: (msg: string) => void): Promise<T | null>;
  /** Runs `fn` against a freshly started target and stops it afterwards; null when either failed. */
  onFresh<T>(start: Start, what: string, fn: (t: Target) => Promise<T>, onError: (m: string) => void): Promise<T | null>;
}

/** Counts added up over repetitions rather than taken as a median. */
export const SUMMED = ['errors', 'delivered', 'expected'];
