// The API-key middleware: Authorization: Bearer <key> → the caller's account on the context.
// A malformed key is refused before any query; a well-formed one costs one indexed lookup
// (key and account joined). Failures are throttled per client address.
import type { Context, MiddlewareHandler } from 'hono';
import { findKeyByHash, touchKeyLastUsed } from '../db/api-keys.ts';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../http/problem.ts';
import { hashApiKey, isWellFormedApiKey } from './api-key.ts';

/** last_used_at is written at most once a minute per key, and never on the request's own path. */
const LAST_USED_GRANULARITY_MS = 60_000;
const READ_METHODS = new Set(['GET', 'HEAD']);

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

/** Counts a failed attempt against the client's address; over the limit the answer is 429. */
export async function authFailure(c: Context<AppEnv>, detail: string): Promise<ApiError> {
  const { success } = await c.env.AUTH_FAILURE_LIMITER.limit({ key: clientAddress(c) });
  if (!success) {
    return new ApiError('rate_limited', 'Too many failed authentication attempts; wait a minute', { headers: exhausted(FAILED_AUTH_POLICY) });
  }
  return new ApiError('unauthorized', detail, {
    headers: { 'WWW-Authenticate': 'Bearer realm="scenario-service", error="invalid_token"', 'RateLimit-Policy': FAILED_AUTH_POLICY },
  });
}

export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = bearerToken(c);
  if (key === null) {
    throw new ApiError('unauthorized', 'Send your API key as Authorization: Bearer <API key>', {
      headers: { 'WWW-Authenticate': 'Bearer realm="scenario-service"', 'RateLimit-Policy': FAILED_AUTH_POLICY },
    });
  }
  if (!isWellFormedApiKey(key)) throw await authFailure(c, 'The API key is not valid');

  const db = c.get('db');
  const found = await findKeyByHash(db, await hashApiKey(key));
  const now = Date.now();
  if (!found) throw await authFailure(c, 'The API key is not valid');
  if (found.revokedAt !== null) throw await authFailure(c, 'The API key has been revoked');
  if (found.expiresAt !== null && found.expiresAt <= now) throw await authFailure(c, 'The API key has expired');

  const policy = keyPolicy(c.env);
  const limit = await c.env.KEY_RATE_LIMITER.limit({ key: String(found.id) });
  if (!limit.success) {
    throw new ApiError('rate_limited', `This key is over its limit of ${c.env.RATE_LIMIT_PER_MINUTE} requests a minute`, {
      headers: exhausted(policy),
    });
  }
  if (!READ_METHODS.has(c.req.method) && found.scope !== 'read_write') {
    throw new ApiError('forbidden', 'This API key is read-only; writing needs a read_write key', { headers: { 'RateLimit-Policy': policy } });
  }

  c.set('caller', {
    accountId: found.accountId,
    keyId: found.id,
    scope: found.scope,
    name: found.accountName,
    email: found.accountEmail,
  });
  if (found.lastUsedAt === null || found.lastUsedAt < now - LAST_USED_GRANULARITY_MS) {
    c.executionCtx.waitUntil(touchKeyLastUsed(db, found.id, now, LAST_USED_GRANULARITY_MS).catch(() => undefined));
  }
  await next();
  // Errors of the route have become responses by now (the app's error handler), so this covers them.
  c.res.headers.set('RateLimit-Policy', policy);
};
