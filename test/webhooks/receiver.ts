// A webhook receiver on 127.0.0.1 for the webhook tests: it records every request and answers
// with the status its script gives for that attempt (then 200), or the one its function gives the body.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  status: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Statuses for the next requests, in order; 200 once used up. */
  script: number[];
  close(): Promise<void>;
}

export async function startReceiver(answer: number[] | ((body: string) => number) = []): Promise<Receiver> {
  const received: Received[] = [];
  const r: Receiver = { url: '', received, script: Array.isArray(answer) ? [...answer] : [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const status = typeof answer === 'function' ? answer(body) : r.script.length > 0 ? r.script.shift()! : 200;
      received.push({ headers: req.headers, body, status });
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}
