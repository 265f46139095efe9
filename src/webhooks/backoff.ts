// When a failed delivery is tried again: exponential backoff with jitter, within the webhook's
// retry window, then the dead-letter list. Pure: time and randomness are passed in.

import type { WebhookRetry } from '../config/webhooks.js';

export type AfterFailure = { status: 'pending'; at: number } | { status: 'dead' };

/**
 * After failed attempt number `attempts` (1 for the first): the next attempt's time, or dead once
 * the window that began at `windowStart` has passed. The delay doubles from initial_ms up to
 * max_ms and is drawn from its upper half ("equal jitter"), so retries of many deliveries spread
 * out; the last attempt falls at the window's end.
 */
export function afterFailure(attempts: number, windowStart: number, now: number, retry: WebhookRetry, random: () => number): AfterFailure {
  const end = windowStart + retry.window_ms;
  if (now >= end) return { status: 'dead' };
  const base = Math.min(retry.max_ms, retry.initial_ms * 2 ** Math.min(30, Math.max(0, attempts - 1)));
  const delay = base / 2 + random() * (base / 2);
  return { status: 'pending', at: Math.min(end, Math.round(now + delay)) };
}
