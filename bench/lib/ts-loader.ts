// How the bench starts its own TypeScript scripts (the bench itself, the baseline, subscriber
// pools): under tsx for `npm run bench`; in the test runner's copy of the checkout, where each .ts
// file has its compiled .js beside it, as that JavaScript (tsx costs each process about 0.4 s of CPU).

import { existsSync } from 'node:fs';

/** The node arguments that run the TypeScript file `file`: its .js sibling when built, else through tsx. */
export function tsScript(file: string): string[] {
  const js = file.replace(/\.ts$/, '.js');
  return import.meta.url.endsWith('.js') && existsSync(js) ? [js] : ['--import', 'tsx', file];
}
