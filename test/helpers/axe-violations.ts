// axe-core's accessibility check run inside a console page, for the browser tests.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Serious or critical axe-core violations on the page as "rule: targets" lines (evaluated, so the page's CSP does not block it). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  )) as string[];
}
