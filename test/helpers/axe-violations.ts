// axe-core's accessibility check run inside a console page, for the browser tests.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The rules a colour scheme can change. A page in its second scheme has the same document, so the
 * other rules would find what they found in the first: `colorsOnly` runs these alone there (each
 * full run costs Chromium about half a second of CPU).
 */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * Serious or critical axe-core violations on the page as "rule: targets" lines (evaluated, so the
 * page's CSP does not block it; loaded once per document).
 */
export async function seriousViolations(page: Page, opts: { colorsOnly?: boolean } = {}): Promise<string[]> {
  if (!(await page.evaluate("typeof axe === 'object'"))) await page.evaluate(AXE);
  const only = opts.colorsOnly ? `runOnly: { type: 'rule', values: ${JSON.stringify(COLOUR_RULES)} }, ` : '';
  return (await page.evaluate(
    `axe.run(document, { ${only}resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  )) as string[];
}
