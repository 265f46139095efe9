// The one error catalogue: every error the service returns has a stable code and an HTTP status.
// Routes throw AppError; src/http/respond.ts alone turns it into the envelope.

export const CATALOGUE = {
  bad_request: { status: 400, message: 'the request is malformed' },
  unauthorized: { status: 401, message: 'credentials are missing or invalid' },
  forbidden: { status: 403, message: 'not allowed' },
  not_found: { status: 404, message: 'not found' },
  method_not_allowed: { status: 405, message: 'method not allowed on this path' },
  request_timeout: { status: 408, message: 'the request body did not arrive in time' },
  conflict: { status: 409, message: 'conflict' },
  agent_reserved: { status: 409, message: 'this agent id is reserved for a credential the operator issued' },
  payload_too_large: { status: 413, message: 'request body is larger than 1 MiB' },
  range_not_satisfiable: { status: 416, message: 'the requested range is not within the file' },
  unprocessable_entity: { status: 422, message: 'unprocessable entity' },
  too_many_requests: { status: 429, message: 'too many requests' },
  loop_detected: {
    status: 429,
    message: 'agents in this conversation answered each other too many times in a row; a human message or a pause resumes it',
  },
  internal_error: { status: 500, message: 'internal error' },
  bad_gateway: { status: 502, message: 'the paired network did not answer correctly' },
  service_unavailable: { status: 503, message: 'service unavailable' },
  insufficient_storage: { status: 507, message: 'the server has no room to store this' },
} as const;

export type ErrorCode = keyof typeof CATALOGUE;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    /** Extra response headers (Retry-After, Allow). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? CATALOGUE[code].message);
    this.name = 'AppError';
    this.status = CATALOGUE[code].status;
  }
}

export const badRequest = (msg: string) => new AppError('bad_request', msg);
export const unauthorized = (msg = 'credentials are missing or invalid') => new AppError('unauthorized', msg);
export const forbidden = (msg: string) => new AppError('forbidden', msg);
export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const conflict = (msg: string) => new AppError('conflict', msg);
