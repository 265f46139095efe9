// Live events from the SSE feed applied to what is on screen.

import { convKey } from './render.js';
import { addMessages, catchUp, loadArtifacts, nearEnd, redrawMessage, renderMembers, scrollToEnd, showEmpty } from './conversation.js';
import { loadAgents, loadDms, loadRooms, renderAgents, renderDms, renderRooms, renderThreads } from './sidebar.js';
import { applyChange } from './message-change.js';
import { onReaction } from './reactions.js';
import { $, state } from './state.js';
import { onReceipts } from './receipts.js';
import { onPanelMessage } from './thread.js';
import { notePeople } from './people.js';
import { noteActivity } from './thread-activity.js';

/** Shows the state of the live feed in the header. */
export function setLive(cls, text) {
  const l = $('live-status');
  l.className = `live ${cls}`;
  l.textContent = text;
}

export function onLiveState(s, wasDown) {
  if (s === 'live') {
    setLive('on', 'live');
    // Replay covers short drops; a fetch covers anything replay missed.
    if (wasDown) catchUp();
  } else if (s === 'reconnecting') setLive('off', 'reconnecting');
  else setLive('off', 'live updates unavailable');
}

export function onEvent(e) {
  switch (e.type) {
    case 'message.created':
      return onMessage(e.message);
    // The event's message is the message as it now is (edited, or a tombstone): redrawn in place.
    case 'message.edited':
    case 'message.deleted':
    case 'message.redacted':
      return applyChange(e.message);
    // The message.created that follows a creation event counts its message.
    case 'thread.created':
      if (e.thread && e.thread.room_id === state.threadsRoom && !state.threads.has(e.thread.id)) {
        state.threads.set(e.thread.id, { ...e.thread, message_count: 0 });
        renderThreads();
      }
      return;
    case 'dm.created':
      if (e.dm && state.dmsAllowed && !state.dms.has(e.dm.id)) {
        state.dms.set(e.dm.id, { ...e.dm, message_count: 0 });
        renderDms();
      }
      return;
    case 'room.created':
    case 'room.members.updated':
      if (e.room) {
        state.rooms.set(e.room.id, e.room);
        renderRooms();
        if (state.current?.roomId === e.room.id) renderMembers();
      } else loadRooms();
      return;
    case 'room.removed': {
      const id = e.room_id ?? e.room?.id;
      state.rooms.delete(id);
      renderRooms();
      if (state.current?.roomId === id) showEmpty(`Room ${id} was removed.`);
      return;
    }
    case 'agent.connected':
    case 'agent.disconnected': {
      const id = e.agent?.agent_id;
      if (!id) return;
      state.presence.set(id, e.type === 'agent.connected');
      if (!state.agents.has(id)) loadAgents();
      else renderAgents();
      return;
    }
    case 'agent.removed': {
      const id = e.agent_id ?? e.agent?.agent_id;
      state.agents.delete(id);
      state.presence.delete(id);
      renderAgents();
      return;
    }
    case 'reaction.updated':
      return onReaction(e.reaction);
    case 'message.receipts':
      return onReceipts(e);
    case 'stream.replay_gap':
      // Events were missed: refresh what is on screen.
      loadRooms();
      loadAgents();
      loadDms();
      if (state.current) catchUp();
      return;
    default:
      return;
  }
}

function onMessage(m) {
  if (!m?.target) return;
  // Replays after a reconnect may repeat a message: count each one once.
  if (state.counted.has(m.id)) return;
  if (state.counted.size > 10_000) state.counted.clear();
  state.counted.add(m.id);
  const key = convKey(m.target);
  const c = state.current;
  noteActivity(m);
  notePeople([m]);
  // A reply to the thread open in the side panel shows there and is not unread.
  const inPanel = onPanelMessage(m);
  if (m.target.kind === 'thread') {
    const t = state.threads.get(m.target.thread_id);
    if (t) {
      t.message_count = (t.message_count ?? 0) + 1;
      t.last_message_at = m.created_at;
    } else if (m.target.room_id === state.threadsRoom) {
      state.threads.set(m.target.thread_id, {
        id: m.target.thread_id,
        room_id: m.target.room_id,
        parent_message_id: m.target.parent_message_id,
        message_count: 1,
        last_message_at: m.created_at,
      });
    }
  }
  // The room in view shows the new reply count under the thread's parent.
  const parentId = m.target.kind === 'thread' ? state.threads.get(m.target.thread_id)?.parent_message_id : undefined;
  if (parentId && c?.kind === 'room' && c.id === m.target.room_id) redrawMessage(parentId);
  if (m.target.kind === 'dm' && state.dmsAllowed) {
    const d = state.dms.get(m.target.dm_id);
    if (d) d.message_count = (d.message_count ?? 0) + 1;
    else
      state.dms.set(m.target.dm_id, {
        id: m.target.dm_id,
        participant_ids: m.target.participant_ids ?? [],
        message_count: 1,
        last_message_at: m.created_at,
      });
  }
  if (c && key === `${c.kind}:${c.id}`) {
    if (state.loading) state.pending.push(m);
    else {
      const stick = nearEnd();
      addMessages([m], 'end');
      if (stick) scrollToEnd();
    }
  } else if (!inPanel) {
    state.unread.set(key, (state.unread.get(key) ?? 0) + 1);
  }
  // A room's artifacts include those of its threads (the one in the panel, say).
  const shown = c && (key === `${c.kind}:${c.id}` || (c.kind === 'room' && m.target.room_id === c.id));
  if (shown && m.parts?.some((p) => p.kind !== 'text')) loadArtifacts();
  renderRooms();
  renderThreads();
  renderDms();
}
