// An attached agent: ACKs what it gets, drops and reconnects at random, resumes from its cursor.

import WebSocket from 'ws';
import type { Json, TestServer } from '../../test/helpers/server.js';
import { ADMIN, agentId, rand, sleep } from './options.js';
import { gOf, Seen } from './seen.js';
import { cur, error } from './stats.js';

export class Agent {
  readonly seen = new Seen();
  cursor: string | undefined;
  private ws: WebSocket | undefined;
  private stopped = false;
  private connected = false;
  readonly problems: string[] = [];
  private running: Promise<void> | undefined;

  constructor(
    readonly index: number,
    private readonly s: TestServer,
  ) {}

  start(): void {
    this.running = this.loop();
  }

  get isConnected(): boolean {
    return this.connected;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ws?.close(1000);
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      // Live for a random while (mean 30 s), then drop and come back within a second.
      const life = -Math.log(1 - Math.random()) * 30_000;
      await this.session(this.stopped ? 0 : life);
      if (this.stopped) return;
      cur.reconnects++;
      await sleep(rand(1000));
    }
  }

  /** One attachment until `life` ms pass (0: until stopped) or it closes. */
  private session(life: number): Promise<void> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${this.s.port}/v1/attach`, { headers: { authorization: `Bearer ${ADMIN}` } });
      this.ws = ws;
      let timer: NodeJS.Timeout | undefined;
      ws.on('error', (err) => {
        if (!this.stopped) error(`attach ${this.index}: ${err.message}`);
      });
      ws.on('close', () => {
        clearTimeout(timer);
        this.connected = false;
        resolve();
      });
      ws.on('message', (data) => {
        const f = JSON.parse(data.toString()) as Json;
        switch (f.op) {
          case 'HELLO':
            ws.send(
              JSON.stringify({
                op: 'IDENTIFY',
                network_id: 'soak',
                agent: { id: agentId(this.index) },
                ...(this.cursor ? { cursor: this.cursor } : {}),
              }),
            );
            break;
          case 'READY':
            this.connected = true;
            if (this.cursor !== undefined && f.cursor !== this.cursor) this.problems.push(`READY at ${f.cursor}, not at ${this.cursor}`);
            // Delivery starts after READY.cursor: resume from there even if no event comes before a drop.
            this.cursor ??= String(f.cursor);
            if (life > 0) timer = setTimeout(() => ws.close(1000), life);
            break;
          case 'EVENT': {
            cur.events++;
            if (this.cursor !== undefined && !(Number(f.cursor) > Number(this.cursor)))
              this.problems.push(`cursor ${f.cursor} after ${this.cursor}`);
            this.cursor = String(f.cursor);
            const g = f.event?.type === 'message.created' ? gOf(f.event.message) : undefined;
            if (g !== undefined) this.seen.add(g);
            ws.send(JSON.stringify({ op: 'ACK', cursor: f.cursor }));
            break;
          }
          case 'PING':
            ws.send('{"op":"PONG"}');
            break;
          case 'ERROR':
            error(`attach ${this.index} ERROR ${f.code}: ${f.error}`);
            break;
        }
      });
    });
  }
}
