// A self-registered agent that belongs to rooms. An id svc.yaml or an operator names is reserved
// (src/network/reserved-agents.ts), so a stranger cannot claim it: a test whose agent claims its id
// anonymously leaves it out of the rooms it declares and has the operator add it after the claim.

import * as assert from 'uvu/assert';
import { TOKENS, type Res } from './server.js';

interface Server {
  post(p: string, body: unknown, token?: string): Promise<Res>;
  req(method: string, p: string, o?: { token?: string; body?: unknown }): Promise<Res>;
}

/** Claims `id` with no credential (open registration), then adds it to `rooms` with an admin token; answers the registration. */
export async function claimThenJoin(
  s: Server,
  id: string,
  rooms: readonly string[],
  name?: string,
  admin: string = TOKENS.admin.value,
): Promise<Res> {
  const reg = await s.post('/v1/agents/register', { requested_agent_id: id, ...(name !== undefined ? { name } : {}) });
  assert.is(reg.status, 200, reg.text);
  for (const room of rooms) {
    const added = await s.req('PATCH', `/v1/rooms/${encodeURIComponent(room)}/members`, { token: admin, body: { add: [id] } });
    assert.is(added.status, 200, added.text);
  }
  return reg;
}
