// How the bench starts its own TypeScript processes (the baseline, subscriber pools, the history
// loader): with the loader this process runs under. That is tsx for `npm run bench`; in the test
// suite it is the runner's compiled copy (scripts/test-loader.mjs), which starts in a fraction of
// tsx's time.

/** The `--import` flags that load TypeScript in a child: this process's own TypeScript loader, else tsx. */
export function tsImport(): string[] {
  const argv = process.execArgv;
  for (let i = 0; i < argv.length - 1; i++) {
    const v = argv[i + 1]!;
    if (argv[i] === '--import' && (v === 'tsx' || /\/tsx\/|scripts\/test-loader\.mjs$/.test(v))) return ['--import', v];
  }
  return ['--import', 'tsx'];
}
