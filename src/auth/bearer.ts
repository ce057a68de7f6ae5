// API keys at the edge: `apiKey(access)` is the middleware of every API-key route. It reads
// Authorization: Bearer <key>, refuses a malformed key before any query, applies the per-key rate
// limit, and puts the request's keyed path (auth/keyed.ts) on the context; the route's workflow
// sends its statements through it, so the key is judged in the same round trip as the work.
// Failed credentials are counted per client address (an IPv4 address or an IPv6 /64): over the
// limit, the address's *failing* credentials get 429 for a minute, while a valid key keeps working.
import type { Context, MiddlewareHandler } from 'hono';
import { touchKeyLastUsed, type KeyAccess, type KeyRefusal } from '../db/api-keys.ts';
import { isThrottled, throttleAddress } from '../db/auth-throttles.ts';
import { AUTH_FAILURES_PER_MINUTE, readConfig, readDatabases, type AppEnv } from '../env.ts';
import { useDatabase } from '../http/middleware.ts';
import { ApiError, problemResponse } from '../http/problem.ts';
import { apiKeyDatabase, hashApiKey } from './api-key.ts';
import { keyed } from './keyed.ts';
import { throttleBucket } from './client-address.ts';

/** last_used_at is written at most once a minute per key, and never on the request's own path. */
const LAST_USED_GRANULARITY_MS = 60_000;

export function bearerToken(c: Context): string | null {
  const header = c.req.header('Authorization');
  const match = header ? /^Bearer +([^\s]+) *$/i.exec(header) : null;
  return match?.[1] ?? null;
}

/** The client's failure bucket: its IPv4 address, or its IPv6 /64. */
export function clientAddress(c: Context): string {
  return throttleBucket(c.req.header('cf-connecting-ip') ?? 'unknown');
}

// Rate-limit headers (IETF draft-ietf-httpapi-ratelimit-headers). The Workers rate-limit binding
// says only whether a request is allowed, so the remaining quota (RateLimit) is sent only where it
// is known: on 429, where it is zero. Both limiters count per 60 s.
const WINDOW_SECONDS = 60;
export const FAILED_AUTH_POLICY = `"failed-auth";q=${AUTH_FAILURES_PER_MINUTE};w=${WINDOW_SECONDS}`;

function keyPolicy(perMinute: number): string {
  return `"per-key";q=${perMinute};w=${WINDOW_SECONDS}`;
}

function exhausted(policy: string): Record<string, string> {
  const name = policy.slice(0, policy.indexOf(';'));
  return { 'Retry-After': String(WINDOW_SECONDS), 'RateLimit-Policy': policy, RateLimit: `${name};r=0;t=${WINDOW_SECONDS}` };
}

/** The answer to a failing credential from a throttled address. */
export function throttled(): ApiError {
  return new ApiError('rate_limited', 'Too many failed authentication attempts; wait a minute', { headers: exhausted(FAILED_AUTH_POLICY) });
}

/**
 * Counts a failed attempt against the client's address. Over the limit the address is refused for
 * the next window (recorded in D1, as the limiter cannot be asked without counting) and the answer
 * is 429.
 */
export async function authFailure(c: Context<AppEnv>, detail: string): Promise<ApiError> {
  const address = clientAddress(c);
  const { success } = await c.env.AUTH_FAILURE_LIMITER.limit({ key: address });
  if (!success) {
    // In every database at once (an error path): the keyed path reads the throttle in its key's
    // own database, in the same round trip as the key, whichever database that is.
    const until = Date.now() + WINDOW_SECONDS * 1000;
    await Promise.all(readDatabases(c.env).map((db) => throttleAddress(db, address, until)));
    return throttled();
  }
  return new ApiError('unauthorized', detail, {
    headers: { 'WWW-Authenticate': 'Bearer realm="scenario-service", error="invalid_token"', 'RateLimit-Policy': FAILED_AUTH_POLICY },
  });
}

const FAILING: Record<Exclude<KeyRefusal, 'read_only' | 'throttled'>, string> = {
  unknown: 'The API key is not valid',
  revoked: 'The API key has been revoked',
  expired: 'The API key has expired',
};

/** The problem for a refused key: 401 (counted against the address), 403, or 429 (not counted again). */
async function refusalProblem(c: Context<AppEnv>, reason: KeyRefusal, perMinute: number): Promise<ApiError> {
  if (reason === 'throttled') return throttled();
  if (reason === 'read_only') {
    return new ApiError('forbidden', 'This API key is read-only; this operation needs a read_write key', { headers: { 'RateLimit-Policy': keyPolicy(perMinute) } });
  }
  return authFailure(c, FAILING[reason]);
}

/**
 * Problems with what was sent (400, 404, 415, 422) found before the route's workflow asked D1:
 * on an API-key route the key is judged first, as if it had been checked before anything else,
 * so a refused key hears about its key, not about its input (one more round trip, error path only).
 */
const INPUT_PROBLEM_STATUSES = new Set([400, 404, 415, 422]);

/**
 * The middleware of every API-key route; `access` is what the route needs (`write`: a read_write
 * key). Asks D1 nothing itself: the keyed path it puts on the context travels with the workflow's
 * own statements. The per-key limiter counts the key's hash, which the request already holds.
 */
export function apiKey(access: KeyAccess): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearerToken(c);
    if (token === null) {
      throw new ApiError('unauthorized', 'Send your API key as Authorization: Bearer <API key>', {
        headers: { 'WWW-Authenticate': 'Bearer realm="scenario-service"', 'RateLimit-Policy': FAILED_AUTH_POLICY },
      });
    }
    const address = clientAddress(c);
    // The key names its account's database: the session goes there before anything asks D1.
    const database = apiKeyDatabase(token);
    if (database === null || !useDatabase(c, database)) {
      // A failing credential: refused outright while the address is throttled (an error path, so it may ask D1).
      if (await isThrottled(c.get('db'), { address, now: Date.now() })) throw throttled();
      throw await authFailure(c, 'The API key is not valid');
    }
    const keyHash = await hashApiKey(token);
    const { rateLimitPerMinute } = readConfig(c.env);
    const policy = keyPolicy(rateLimitPerMinute);
    if (!(await c.env.KEY_RATE_LIMITER.limit({ key: keyHash })).success) {
      throw new ApiError('rate_limited', `This key is over its limit of ${rateLimitPerMinute} requests a minute`, { headers: exhausted(policy) });
    }

    const path = keyed(c.get('db'), { keyHash, now: Date.now(), address }, access, {
      accepted: (caller) => c.set('caller', caller),
      refused: (reason) => refusalProblem(c, reason, rateLimitPerMinute),
    });
    c.set('keyed', path);
    await next();

    if (c.error && !c.get('caller') && INPUT_PROBLEM_STATUSES.has(c.res.status)) {
      try {
        await path.run({});
      } catch (refusal) {
        if (!(refusal instanceof ApiError)) throw refusal;
        c.res = undefined;
        c.res = problemResponse(c, refusal);
      }
    }
    // A refused credential keeps the failed-auth policy it was answered under.
    if (!c.res.headers.has('RateLimit-Policy')) c.res.headers.set('RateLimit-Policy', policy);
    const caller = c.get('caller');
    if (caller && (caller.lastUsedAt === null || caller.lastUsedAt < Date.now() - LAST_USED_GRANULARITY_MS)) {
      c.executionCtx.waitUntil(touchKeyLastUsed(c.get('db'), caller.id, Date.now(), LAST_USED_GRANULARITY_MS).catch(() => undefined));
    }
  };
}
