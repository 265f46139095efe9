// Reading a whole list through its pages (the CLI's listings and `svc apply`).

import type { Page } from '../protocol/types.js';
import type { ListQuery } from './requests.js';

/** Every page of a list, oldest first, following `next_before` (lists are served newest-last). */
export async function collectAll<T>(fetchPage: (q: ListQuery) => Promise<{ items: T[]; page?: Page }>, pageSize = 500): Promise<T[]> {
  const out: T[][] = [];
  let before: string | undefined;
  for (;;) {
    const { items, page } = await fetchPage({ limit: pageSize, ...(before !== undefined ? { before } : {}) });
    out.unshift(items);
    if (!page?.has_more || !page.next_before || page.next_before === before) break;
    before = page.next_before;
  }
  return out.flat();
}
