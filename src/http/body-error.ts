// A request body the edge (body.ts) refused, with what was wrong with it.

import { AppError, type ErrorCode } from '../errors.js';

/**
 * A body the edge refused, with what was wrong with it: `syntax` (not UTF-8, not JSON, none where
 * one is required), `content` (valid JSON the server will not take: too deep, a NUL, not an
 * object), `size`, `time`. A route with its own error shape maps these (JSON-RPC's codes).
 */
export class BodyError extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly problem: 'syntax' | 'content' | 'size' | 'time',
  ) {
    super(code, message);
  }
}
