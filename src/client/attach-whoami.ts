// The agent an agent token (`agt_v1_`) belongs to. SPEC has no "who am I" route; an IDENTIFY for
// an agent id the token cannot assert is refused before any registration, and the refusal names
// the token's agent. Nothing is stored by asking.

import { AttachError } from './attach-types.js';
import { transportError } from './errors.js';

const PROBE_ID = 'svc-whoami-probe';

/**
 * Resolves the agent id of an agent token; rejects with AttachError when the server does not say,
 * and with the ClientError of a request when nothing answers (`start`: the start command it names).
 */
export async function agentOfToken(url: string, token: string, networkId: string, timeoutMs = 10_000, start?: string): Promise<string> {
  if (!token.startsWith('agt_v1_'))
    throw new AttachError('not_agent_token', 'only an agent token (agt_v1_...) names its agent; pass the agent id');
  // Loaded here: every command that reads an agent token imports this module, few ask the server.
  const { default: WebSocket } = await import('ws');
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/\/+$/, '').replace(/^http/, 'ws')}/v1/attach`, {
      headers: { authorization: `Bearer ${token}` },
    });
    let answer: string | undefined;
    // A connection that never opened: nothing answers, which is not the server refusing to say.
    let opened = false;
    let failure: unknown;
    ws.on('open', () => {
      opened = true;
    });
    const timer = setTimeout(() => ws.terminate(), timeoutMs);
    ws.on('message', (data) => {
      const f = JSON.parse(data.toString()) as { op?: string; error?: string; agent_id?: string };
      if (f.op === 'HELLO') ws.send(JSON.stringify({ op: 'IDENTIFY', network_id: networkId, agent: { id: PROBE_ID } }));
      else if (f.op === 'ERROR') answer = /belongs to agent (\S+)/.exec(f.error ?? '')?.[1];
      else if (f.op === 'READY') {
        // The token's agent really is the probe id: nothing else to learn.
        answer = f.agent_id;
        ws.close(1000);
      }
    });
    ws.on('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      reject(
        new AttachError(res.statusCode === 401 ? 'unauthorized' : 'forbidden', `GET /v1/attach: ${res.statusCode}: the token was refused`),
      );
      ws.terminate();
    });
    ws.on('error', (err) => {
      if (!opened) failure = err;
    });
    ws.on('close', () => {
      clearTimeout(timer);
      if (answer) resolve(answer);
      else if (failure !== undefined)
        reject(transportError(failure, { method: 'GET', path: '/v1/attach', baseUrl: url, hasToken: true, ...(start ? { start } : {}) }));
      else reject(new AttachError('unknown_agent', 'the server did not say which agent this token belongs to; pass the agent id'));
    });
  });
}
