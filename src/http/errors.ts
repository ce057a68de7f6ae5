// The app's one error handler and its not-found handler: everything leaves as problem+json.
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from '../env.ts';
import { log } from './log.ts';
import { ApiError, problemResponse } from './problem.ts';
import { routeMiss, RouteMissError, type RouteTable } from './routing.ts';

/** Hono's own exceptions come from body parsing (malformed JSON, content type); name them ours. */
function fromHttpException(error: HTTPException): ApiError {
  if (error.status === 400 || error.status === 415) {
    return new ApiError('invalid_json', 'The request body must be a JSON object sent as Content-Type: application/json');
  }
  if (error.status === 413) return new ApiError('payload_too_large', 'The request body is too large');
  return new ApiError('internal_error', 'Something went wrong on our side');
}

/**
 * The app's error handler and not-found handler. `routes` gives the app's route table (built on
 * its first use), which tells a 405 from a 404.
 */
export function errorHandlers(routes: () => RouteTable): { onError: ErrorHandler<AppEnv>; notFound: NotFoundHandler<AppEnv> } {
  return {
    onError: (error, c) => {
      if (error instanceof ApiError) return problemResponse(c, error);
      if (error instanceof RouteMissError) return problemResponse(c, routeMiss(routes(), c));
      if (error instanceof HTTPException) return problemResponse(c, fromHttpException(error));
      logUnexpected(c, error);
      return problemResponse(c, new ApiError('internal_error', 'Something went wrong on our side; quote the request id if you report it'));
    },
    notFound: (c) => problemResponse(c, routeMiss(routes(), c)),
  };
}

/**
 * One structured line per unexpected error. Only the error's class name: messages of database
 * errors can carry SQL and bound values (key hashes, scenario data), which must never be logged.
 */
function logUnexpected(c: Context<AppEnv>, error: Error): void {
  log('error', 'unhandled error', { request_id: c.get('requestId'), method: c.req.method, path: c.req.path, error: error.name });
}
