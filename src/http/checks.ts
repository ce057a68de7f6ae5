// Route checks: what a route refuses before its validators run (a query string, a body that is not
// strict UTF-8, …), as plain functions that throw, composed into one middleware layer per route.
// Each layer Hono composes costs every request a dispatch, a closure and a promise or two.
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';

/** Throws (an ApiError) to refuse the request; returns to let it through. */
export type RouteCheck = (c: Context<AppEnv>) => void | Promise<void>;

/**
 * One middleware making `checks` in order. Their errors are answered at this layer, as they were
 * when each was a middleware of its own, so the layers outside (the API key's) see a reply.
 */
export function routeChecks(...checks: RouteCheck[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    for (const check of checks) await check(c);
    await next();
  };
}
