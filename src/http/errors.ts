// The app's one error handler and its not-found handler: everything leaves as problem+json. They
// only render: nothing here asks D1 (a refused key arrives as a KeyRefusedError, a problem already).
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { DatabaseFullError, DatabaseUnavailableError } from '../db/execute.ts';
import type { AppEnv } from '../env.ts';
import { log, loggablePath } from './log.ts';
import { notJson } from './body.ts';
import { ApiError, problemResponse, STORAGE_FULL } from './problem.ts';
import { routeMiss, RouteMissError, type RouteTable } from './routing.ts';

/** Hono's own exceptions come from body parsing (malformed JSON, content type); name them ours. */
function fromHttpException(error: HTTPException): ApiError {
  if (error.status === 400 || error.status === 415) return notJson();
  if (error.status === 413) return new ApiError('payload_too_large', 'The request body is too large');
  return new ApiError('internal_error', 'Something went wrong on our side');
}

// A retry after D1's transient faults is usually enough within a second.
const RETRY_AFTER_SECONDS = '1';

/**
 * The app's error handler and not-found handler. `routes` gives the app's route table (built on
 * its first use), which tells a 405 from a 404.
 */
export function errorHandlers(routes: () => RouteTable): { onError: ErrorHandler<AppEnv>; notFound: NotFoundHandler<AppEnv> } {
  function toApiError(error: Error, c: Context<AppEnv>): ApiError {
    if (error instanceof HTTPException) return fromHttpException(error);
    if (error instanceof RouteMissError) return routeMiss(routes(), c);
    if (error instanceof ApiError) {
      // An internal_error we raise ourselves names a fault of the deployment (a missing secret): the
      // operator must hear of it. Its detail is our own text, so it is safe to log.
      if (error.code === 'internal_error') {
        log('error', 'server error', { request_id: c.get('requestId'), method: c.req.method, path: loggablePath(c.req.path), detail: error.message });
      }
      return error;
    }
    if (error instanceof DatabaseUnavailableError) {
      return new ApiError(
        'unavailable',
        'The database did not answer through several retries. A change is applied whole or not at all: read it back, or retry (a create is safe to retry with an Idempotency-Key)',
        { headers: { 'Retry-After': RETRY_AFTER_SECONDS } },
      );
    }
    // D1's own refusal at its size limit, past our guard (whose recorded size lags by a step):
    // the batch changed nothing, so the client hears the same 507 as from the guard.
    if (error instanceof DatabaseFullError) return new ApiError('insufficient_storage', STORAGE_FULL);
    logUnexpected(c, error);
    return new ApiError('internal_error', 'Something went wrong on our side; quote the request id if you report it');
  }
  return {
    onError: (error, c) => problemResponse(c, toApiError(error, c)),
    notFound: (c) => problemResponse(c, routeMiss(routes(), c)),
  };
}

/**
 * One structured line per unexpected error. Only the error's class name: messages of database
 * errors can carry SQL and bound values (key hashes, scenario data), which must never be logged.
 */
function logUnexpected(c: Context<AppEnv>, error: Error): void {
  log('error', 'unhandled error', { request_id: c.get('requestId'), method: c.req.method, path: loggablePath(c.req.path), error: error.name });
}
