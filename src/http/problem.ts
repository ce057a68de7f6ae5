// Errors as RFC 9457 problem details. Handlers throw `ApiError`; the app's one error handler
// renders it (and anything unexpected, as a generic 500) through `problemResponse`.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export const PROBLEM_STATUS = {
  invalid_json: 400,
  invalid_query: 400,
  invalid_header: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  quota_exceeded: 409,
  too_many_endpoints: 409,
  too_many_share_links: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  idempotency_conflict: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
  insufficient_storage: 507,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ProblemCode = keyof typeof PROBLEM_STATUS;

const TITLES: Record<ProblemCode, string> = {
  invalid_json: 'Request body is not valid JSON',
  invalid_query: 'Invalid query parameter',
  invalid_header: 'Invalid request header',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  quota_exceeded: 'Scenario quota reached',
  too_many_endpoints: 'Webhook endpoint limit reached',
  too_many_share_links: 'Share link limit reached',
  precondition_failed: 'Precondition failed',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  validation_failed: 'Validation failed',
  idempotency_conflict: 'Idempotency key reused with a different request',
  rate_limited: 'Too many requests',
  internal_error: 'Internal server error',
  unavailable: 'Service unavailable',
  insufficient_storage: 'Insufficient storage',
};

/** The detail of a write refused for room (507): what happened, and what the client can do. */
export const STORAGE_FULL = "The database holding this account is full, so nothing was written; deleting scenarios makes room, or ask the service's operator";

export interface FieldError {
  path: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  request_id: string;
  errors?: FieldError[];
}

export class ApiError extends Error {
  readonly code: ProblemCode;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ProblemCode,
    detail: string,
    options: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'ApiError';
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  get status(): ContentfulStatusCode {
    return PROBLEM_STATUS[this.code];
  }
}

/** A stable, non-resolvable identifier per problem code (RFC 9457 §3.1.1 suggests tag URIs). */
export function problemType(code: ProblemCode): string {
  return `tag:scenario-service,2026:problems/${code}`;
}

export function problemBody(error: ApiError, requestId: string): Problem {
  const body: Problem = {
    type: problemType(error.code),
    title: TITLES[error.code],
    status: error.status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
  };
  if (error.errors) body.errors = error.errors;
  return body;
}

export function problemResponse(c: Context, error: ApiError): Response {
  const headers = new Headers(error.headers);
  headers.set('Content-Type', 'application/problem+json; charset=utf-8');
  headers.set('Cache-Control', 'no-store');
  const requestId = c.get('requestId') ?? '';
  return new Response(JSON.stringify(problemBody(error, requestId)), { status: error.status, headers });
}
