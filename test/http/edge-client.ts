// A raw HTTP client for the body-edge tests: any method with any body (fetch refuses a GET body),
// a declared length that may lie, and an answer read as soon as its headers (and, unless it is a
// stream, its body) arrive, even while the upload is unfinished.

import http from 'node:http';

export interface EdgeAnswer {
  status: number;
  text: string;
  /** Whether the server closed the connection (seen within `closeWaitMs` after the answer). */
  closed?: boolean;
}

export interface EdgeRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Content-Length to declare (the body's length when absent). */
  declared?: number;
  /** Leave the upload unfinished after `body` (the declared rest never comes). */
  stall?: boolean;
  /** How long to wait for the answer before failing as a hang. */
  timeoutMs?: number;
  /** After the answer, wait (within `timeoutMs`) for the server to close the connection. */
  waitClose?: boolean;
}

/** Sends one request on its own connection; rejects when no answer comes in `timeoutMs`. */
export function edgeRequest(port: number, r: EdgeRequest): Promise<EdgeAnswer> {
  return new Promise((resolve, reject) => {
    const body = r.body ?? Buffer.alloc(0);
    const headers: Record<string, string | number> = { ...r.headers, 'content-length': r.declared ?? body.length };
    const req = http.request({ host: '127.0.0.1', port, method: r.method, path: r.path, agent: false, headers });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`${r.method} ${r.path}: no answer in ${r.timeoutMs ?? 20_000} ms`));
    }, r.timeoutMs ?? 20_000);
    req.on('response', (res) => {
      // A stream (SSE) never ends: its status is the answer.
      if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        clearTimeout(timer);
        req.destroy();
        return resolve({ status: res.statusCode ?? 0, text: '' });
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const answer = { status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') };
        if (!r.waitClose) {
          clearTimeout(timer);
          resolve(answer);
          return void req.destroy();
        }
        const closed = () => {
          clearTimeout(timer);
          resolve({ ...answer, closed: true });
        };
        if (req.socket?.destroyed) closed();
        else req.socket?.once('close', closed);
      });
    });
    req.on('error', (err) => {
      // A stalled upload's socket closed by the server after the answer: that is what was waited for.
      if (r.waitClose && req.socket?.destroyed) return;
      clearTimeout(timer);
      reject(new Error(`${r.method} ${r.path}: ${err.message}`));
    });
    // Written in slices so the upload is still going when the server decides.
    let off = 0;
    const pump = (): void => {
      while (off < body.length) {
        const ok = req.write(body.subarray(off, off + 65_536));
        off += 65_536;
        if (!ok) return void req.once('drain', pump);
      }
      if (!r.stall) req.end();
    };
    pump();
  });
}

/** `{"parts":[{"kind":"data","data":{"x":<levels nested arrays>}}]}`: a valid send, far too deep. */
export function deepBody(levels = 6_000): Buffer {
  return Buffer.from(`{"parts":[{"kind":"data","data":{"x":${'['.repeat(levels)}${']'.repeat(levels)}}}]}`);
}
