// A streamed request body (an upload) as the edge hands it over: the request's bytes, counted as
// they pass and refused as soon as they pass the route's limit (413; a declared Content-Length
// over it is refused before any byte is read: body.ts), and refused when they stall: no byte for
// `idleSeconds` is a 408. The handler reads it like any stream; a refusal fails the stream with
// the BodyError, and `failure` keeps it so a consumer that maps its own errors can still tell.

import type { IncomingMessage } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { BodyError } from './body-error.js';

export class BodyStream extends Transform {
  /** Bytes passed so far. */
  size = 0;
  /** Why the edge refused the body, once it did. */
  failure: BodyError | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly req: IncomingMessage,
    private readonly limit: number,
    private readonly idleSeconds: number,
  ) {
    super();
    // A refusal may come before the handler reads (the limit passes while it awaits something
    // else): it is kept in `failure` and seen by whoever reads next, never an unhandled error.
    this.on('error', () => {});
    this.arm();
    req.on('close', () => {
      // A client gone before its body ended: the consumer's pipeline fails and cleans up.
      if (!req.complete && !this.destroyed) this.destroy(new Error('the request was aborted before its body ended'));
    });
    req.on('error', (err) => this.destroy(err));
    req.pipe(this);
  }

  /** Fails the body with the edge's refusal. */
  private refuse(err: BodyError): void {
    this.failure ??= err;
    this.destroy(err);
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () =>
        this.refuse(
          new BodyError(
            'request_timeout',
            `no byte of the request body arrived for ${this.idleSeconds} s (server.limits.body_seconds)`,
            'time',
          ),
        ),
      this.idleSeconds * 1000,
    );
    this.timer.unref();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.limit) {
      done();
      this.refuse(new BodyError('payload_too_large', `request body is larger than ${this.limit} bytes`, 'size'));
      return;
    }
    this.arm();
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    clearTimeout(this.timer);
    done();
  }

  override _destroy(err: Error | null, done: (error: Error | null) => void): void {
    clearTimeout(this.timer);
    this.req.unpipe(this);
    done(err);
  }
}
