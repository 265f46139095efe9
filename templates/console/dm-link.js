// Who the console's person is in DMs, and the address that starts a DM (a leaf module: the sidebar
// and message views link to DMs without importing the DM view).

import { state } from './state.js';

/** The scoped id the console's person sends as, when the session may send. */
export function me() {
  const human = state.session?.human;
  if (!human || !state.network?.console?.can_send_human) return undefined;
  return `${state.network.id}:${human.id}`;
}

/** The console address that starts (or opens) a DM with agent or person `id`, or undefined when this session cannot send one. */
export function dmHref(id) {
  if (!me() || !state.network?.capabilities?.direct_messages) return undefined;
  return `#/to/${encodeURIComponent(id)}`;
}
