// The API-key middleware: Authorization: Bearer <key> → the key's check on the context.
// A malformed key is refused before any query; a well-formed one is checked by the request's own
// D1 batch. Failures are throttled per client address: over the limit, the address is refused for
// a minute whatever it sends (db/auth-throttles.ts), so a correct credential cannot be told apart.
import type { Context, MiddlewareHandler } from 'hono';
import { touchKeyLastUsed } from '../db/api-keys.ts';
import { isThrottled, throttleAddress } from '../db/auth-throttles.ts';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../http/problem.ts';
import { hashApiKey, isWellFormedApiKey } from './api-key.ts';
import type { KeyRefusal } from './key-check.ts';

/** last_used_at is written at most once a minute per key, and never on the request's own path. */
const LAST_USED_GRANULARITY_MS = 60_000;

export function bearerToken(c: Context): string | null {
  const header = c.req.header('Authorization');
  const match = header ? /^Bearer +([^\s]+) *$/i.exec(header) : null;
  return match?.[1] ?? null;
}

export function clientAddress(c: Context): string {
  return c.req.header('cf-connecting-ip') ?? 'unknown';
}

// Rate-limit headers (IETF draft-ietf-httpapi-ratelimit-headers). The Workers rate-limit binding
// says only whether a request is allowed, so the remaining quota (RateLimit) is sent only where it
// is known: on 429, where it is zero. Both limiters count per 60 s.
const WINDOW_SECONDS = 60;
/** Keep equal to AUTH_FAILURE_LIMITER's limit in wrangler.toml. */
const AUTH_FAILURES_PER_WINDOW = 60;
const FAILED_AUTH_POLICY = `"failed-auth";q=${AUTH_FAILURES_PER_WINDOW};w=${WINDOW_SECONDS}`;

/** The per-key policy, quoting RATE_LIMIT_PER_MINUTE (kept equal to KEY_RATE_LIMITER's limit). */
function keyPolicy(env: AppEnv['Bindings']): string {
  const quota = /^[1-9][0-9]{0,8}$/.test(env.RATE_LIMIT_PER_MINUTE) ? env.RATE_LIMIT_PER_MINUTE : '600';
  return `"per-key";q=${quota};w=${WINDOW_SECONDS}`;
}

function exhausted(policy: string): Record<string, string> {
  const name = policy.slice(0, policy.indexOf(';'));
  return { 'Retry-After': String(WINDOW_SECONDS), 'RateLimit-Policy': policy, RateLimit: `${name};r=0;t=${WINDOW_SECONDS}` };
}

/** The answer to every request from a throttled address, whatever credential it carries. */
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
    await throttleAddress(c.get('db'), address, Date.now() + WINDOW_SECONDS * 1000);
    return throttled();
  }
  return new ApiError('unauthorized', detail, {
    headers: { 'WWW-Authenticate': 'Bearer realm="scenario-service", error="invalid_token"', 'RateLimit-Policy': FAILED_AUTH_POLICY },
  });
}

/**
 * Reads the API key and puts its check on the context; asks D1 nothing. The key travels with the
 * request's own statements (scenarios/workflows.ts), which refuse to work for a refused key and
 * bring its row back for the reply's reason. The per-key limiter counts the key's hash, which
 * the request already holds.
 */
export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = bearerToken(c);
  if (key === null) {
    throw new ApiError('unauthorized', 'Send your API key as Authorization: Bearer <API key>', {
      headers: { 'WWW-Authenticate': 'Bearer realm="scenario-service"', 'RateLimit-Policy': FAILED_AUTH_POLICY },
    });
  }
  const address = clientAddress(c);
  if (!isWellFormedApiKey(key)) {
    // An error path, so it may ask D1: a throttled address gets the answer a valid key would get.
    if (await isThrottled(c.get('db'), { address, now: Date.now() })) throw throttled();
    throw await authFailure(c, 'The API key is not valid');
  }
  const keyHash = await hashApiKey(key);

  const policy = keyPolicy(c.env);
  const limit = await c.env.KEY_RATE_LIMITER.limit({ key: keyHash });
  if (!limit.success) {
    throw new ApiError('rate_limited', `This key is over its limit of ${c.env.RATE_LIMIT_PER_MINUTE} requests a minute`, {
      headers: exhausted(policy),
    });
  }

  c.set('key', { keyHash, now: Date.now(), address });
  await next();
  // Errors of the route have become responses by now (the app's error handler), so this covers them;
  // a refused credential keeps the failed-auth policy it was answered under.
  if (!c.res.headers.has('RateLimit-Policy')) c.res.headers.set('RateLimit-Policy', policy);
  const caller = c.get('caller');
  if (caller && (caller.lastUsedAt === null || caller.lastUsedAt < Date.now() - LAST_USED_GRANULARITY_MS)) {
    c.executionCtx.waitUntil(touchKeyLastUsed(c.get('db'), caller.id, Date.now(), LAST_USED_GRANULARITY_MS).catch(() => undefined));
  }
};

const REFUSALS: Record<Exclude<KeyRefusal, 'read_only' | 'throttled'>, string> = {
  unknown: 'The API key is not valid',
  revoked: 'The API key has been revoked',
  expired: 'The API key has expired',
};

/** The answer to a key the database refused: 401 (counted against the address), 403, or 429 (not counted again). */
export async function keyRefusal(c: Context<AppEnv>, reason: KeyRefusal): Promise<ApiError> {
  if (reason === 'throttled') return throttled();
  if (reason === 'read_only') {
    return new ApiError('forbidden', 'This API key is read-only; writing needs a read_write key', { headers: { 'RateLimit-Policy': keyPolicy(c.env) } });
  }
  return authFailure(c, REFUSALS[reason]);
}
