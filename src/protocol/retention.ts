// A retention policy as operators read it (the CLI, the console). Pure.

import type { RetentionPolicy } from './types.js';

/** A policy as one line for operators (`30d, 1000 messages`). */
export function describeRetention(p: RetentionPolicy | undefined): string {
  const parts = [...(p?.max_age ? [p.max_age] : []), ...(p?.max_messages !== undefined ? [`${p.max_messages} messages`] : [])];
  return parts.length > 0 ? parts.join(', ') : 'forever';
}
