// Types of scripts/test-plan.mjs for the tests that import it.

export declare function filesUnder(dir: string, suffix: string, skip?: Set<string>): string[];
export declare function selectFiles(all: string[], areas: string[], unitOnly: boolean, isDir: (area: string) => boolean): string[];
export declare function orderFiles(files: string[], seconds: Record<string, number>): string[];
export declare function groupFiles(
  files: string[],
  seconds: Record<string, number>,
  budget: number,
  alone?: (file: string) => boolean,
): string[][];
export interface GroupPart {
  started: boolean;
  out: string;
  code?: number;
  cpu?: number;
  ms?: number;
}
export declare function splitGroupOutput(output: string, files: string[]): GroupPart[];
export declare function judge(output: string): { total: number; passed: number; skipped: number; failed: number };
export declare function cpuOf(pid?: number | 'self'): number;
