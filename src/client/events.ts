// Following GET /v1/events/stream with the eventsource package: frames `id:`, `event:`, `data:`
// carry the event envelope. A dropped stream (server restart, network) is reopened with
// Last-Event-ID so the server can replay what was missed; events already seen are skipped.

import type { ErrorEvent, EventSource } from 'eventsource';
import { EVENT_TYPES, type ServiceEvent } from '../protocol/types.js';
import { ClientError, responseError, transportError, type CallContext } from './errors.js';

export interface FollowOptions {
  /** Resume after this event id (sent as Last-Event-ID on the first connection too). */
  lastEventId?: string;
  onEvent: (event: ServiceEvent) => void;
  /** Each time the stream is open; `resumed` after a drop. */
  onOpen?: (info: { resumed: boolean; lastEventId?: string }) => void;
  /** Once per outage, with why. */
  onDrop?: (reason: string) => void;
  /** Wait before reopening after the server answered 5xx (ms); reconnects after a network error follow the server's `retry:`. */
  retryMs?: number;
}

export interface EventFollower {
  /** Settles when `close()` is called; rejects with a ClientError when the server refuses the stream (4xx). */
  readonly done: Promise<void>;
  /** The id of the last event received. */
  lastEventId(): string | undefined;
  close(): void;
}

const SEEN_MAX = 2048;

/** Opens the stream at `url` and keeps it open until `close()` or a refusal. */
export function followEvents(url: string, token: string | undefined, opts: FollowOptions): EventFollower {
  const baseUrl = url.replace(/\/v1\/events\/stream$/, '');
  const ctx: CallContext = { method: 'GET', path: '/v1/events/stream', baseUrl, hasToken: token !== undefined };
  let last = opts.lastEventId;
  const seen = new Set<string>();
  let source: EventSource | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;
  let everOpen = false;
  let dropped = false;
  let settle!: { resolve: () => void; reject: (e: ClientError) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));

  const stop = () => {
    closed = true;
    clearTimeout(retryTimer);
    source?.close();
  };
  const fail = (err: ClientError) => {
    if (closed) return;
    stop();
    settle.reject(err);
  };
  const drop = (reason: string) => {
    if (dropped) return;
    dropped = true;
    if (everOpen) opts.onDrop?.(reason);
  };

  const onFrame = (ev: MessageEvent) => {
    let event: ServiceEvent;
    try {
      event = JSON.parse(String(ev.data)) as ServiceEvent;
    } catch {
      return; // a frame that is not an envelope (a comment-like keepalive) carries nothing to show
    }
    const id = ev.lastEventId || event.id;
    if (id) {
      last = id;
      if (seen.has(id)) return;
      seen.add(id);
      if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value as string);
    }
    opts.onEvent(event);
  };

  // The package loads with the first stream: most commands of a client never follow one.
  let Source: typeof EventSource | undefined;
  const open = () => {
    if (closed || !Source) return;
    let refusal: { status: number; text: string } | undefined;
    const src = new Source(url, {
      fetch: async (input, init) => {
        const headers: Record<string, string> = { ...init.headers };
        if (token !== undefined) headers.authorization = `Bearer ${token}`;
        if (last !== undefined) headers['Last-Event-ID'] = last;
        const res = await fetch(input, { ...init, headers } as RequestInit);
        if (res.status !== 200) refusal = { status: res.status, text: await res.text().catch(() => '') };
        return res;
      },
    });
    source = src;
    src.onopen = () => {
      const resumed = dropped;
      dropped = false;
      everOpen = true;
      opts.onOpen?.({ resumed, ...(last !== undefined ? { lastEventId: last } : {}) });
    };
    src.onmessage = onFrame;
    for (const type of EVENT_TYPES) src.addEventListener(type, onFrame);
    src.onerror = (ev: ErrorEvent) => {
      if (closed) return;
      // CONNECTING: the package retries by itself (network error or the server ended the stream).
      if (src.readyState === src.CONNECTING) return drop(ev.message ?? 'connection lost');
      src.close();
      const status = refusal?.status ?? ev.code;
      if (status !== undefined && status !== 200 && (status >= 500 || status === 429)) {
        drop(`the server answered ${status}`);
        retryTimer = setTimeout(open, opts.retryMs ?? 3000);
        return;
      }
      if (status !== undefined && status !== 200) return fail(responseError(status, refusal?.text ?? '', ctx));
      if (ev.message && !ev.code) return fail(transportError(new Error(ev.message), ctx));
      fail(
        new ClientError(
          `GET /v1/events/stream: ${ev.message ?? 'not an event stream'}: is ${baseUrl} an svc server?`,
          status,
          'bad_response',
        ),
      );
    };
  };
  import('eventsource').then(
    (m) => {
      Source = m.EventSource;
      open();
    },
    (err: unknown) => fail(transportError(err, ctx)),
  );

  return {
    done,
    lastEventId: () => last,
    close() {
      if (closed) return;
      stop();
      settle.resolve();
    },
  };
}
