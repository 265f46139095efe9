// The SSE feed (/v1/events/stream): EventSource sends the session cookie and resumes with
// Last-Event-ID by itself; every named event type is forwarded to one handler.

const TYPES = [
  'message.created',
  'thread.created',
  'dm.created',
  'room.created',
  'room.members.updated',
  'room.removed',
  'agent.removed',
  'agent.connected',
  'agent.disconnected',
  'agent.wake.delivered',
  'agent.wake.failed',
  'pairing.updated',
  'stream.replay_gap',
  'conversation.loop_guard',
  'reaction.updated',
  'message.receipts',
];

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
  for (const t of TYPES) es.addEventListener(t, deliver);
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
