// The SSE feed (/v1/events/stream): EventSource sends the session cookie and resumes with
// Last-Event-ID by itself; every named event type is forwarded to one handler. The types come from
// the server (event-types.js is written from src/protocol/types.ts), so no list here can drift.

import { EVENT_TYPES } from './event-types.js';

/** Opens the feed. `onEvent(envelope)`, `onState('live' | 'reconnecting' | 'closed', wasDown)`. Returns close(). */
export function follow(onEvent, onState) {
  const es = new EventSource('/v1/events/stream');
  let down = false;
  const deliver = (e) => {
    let env;
    try {
      env = JSON.parse(e.data);
    } catch {
      return;
    }
    if (env && typeof env === 'object') onEvent(env);
  };
  for (const t of EVENT_TYPES) es.addEventListener(t, deliver);
  // Unnamed frames, in case a server sends the type only inside the envelope.
  es.onmessage = deliver;
  es.onopen = () => {
    onState('live', down);
    down = false;
  };
  es.onerror = () => {
    down = true;
    onState(es.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting', true);
  };
  return () => es.close();
}
