// Route checks: what a route refuses before its validators run (a query string, a body that is not
// strict UTF-8, …), as plain functions that throw, composed into one middleware layer per route.
// Each layer Hono composes costs every request a dispatch, a closure and a promise or two.
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { ApiError } from './problem.ts';
import { RouteMissError } from './routing.ts';

/** Throws (an ApiError) to refuse the request; returns to let it through. */
export type RouteCheck = (c: Context<AppEnv>) => void | Promise<void>;

/** The statuses of a problem with what was sent (query, body, path, header): see judgeKeyFirst. */
const INPUT_PROBLEM_STATUSES = new Set([400, 404, 415, 422]);

/**
 * Problems with what was sent are found before the route's workflow asks D1. On an API-key route
 * the key is judged first (one more round trip, an error path only), so a refused key hears about
 * its key, not about its input: its KeyRefusedError rises instead of `problem`. Elsewhere, and for
 * problems that are not the input's, `problem` rises as it is.
 */
export async function refuseInput(c: Context<AppEnv>, problem: unknown): Promise<never> {
  if ((problem instanceof ApiError && INPUT_PROBLEM_STATUSES.has(problem.status)) || problem instanceof RouteMissError) {
    const keyed = c.get('keyed') as AppEnv['Variables']['keyed'] | undefined;
    if (keyed && keyed.caller === null) await keyed.run({});
  }
  throw problem;
}

/** One middleware making `checks` in order; what they refuse is refused after the key (refuseInput). */
export function routeChecks(...checks: RouteCheck[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    try {
      for (const check of checks) await check(c);
    } catch (problem) {
      await refuseInput(c, problem);
    }
    await next();
  };
}
