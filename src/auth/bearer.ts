// API keys at the edge: `apiKey(access)` is the middleware of every API-key route. It reads
// Authorization: Bearer <key>, refuses a malformed key before any query, applies the per-key rate
// limit, and puts the request's keyed path (auth/keyed.ts) on the context; the route's workflow
// sends its statements through it, so the key is judged in the same round trip as the work.
// A refusal rises as a KeyRefusedError to the app's one error handler, like every other error.
// Failed credentials are counted per client address (an IPv4 address or an IPv6 /64): over the
// limit, the address's *failing* credentials get 429 for a minute, while a valid key keeps working.
import type { Context, MiddlewareHandler } from 'hono';
import { touchKeyLastUsed, type KeyAccess } from '../db/api-keys.ts';
import { isThrottled, throttleAddress } from '../db/auth-throttles.ts';
import { recordDatabaseSize, sizeToRecord } from '../db/sizes.ts';
import { readConfig, readDatabases, type AppEnv } from '../env.ts';
import { useDatabase } from '../http/middleware.ts';
import { ApiError } from '../http/problem.ts';
import { apiKeyDatabase, hashApiKey } from './api-key.ts';
import { throttleBucket } from './client-address.ts';
import { keyed, KeyRefusedError, unauthorized } from './keyed.ts';
import { exhausted, FAILED_AUTH_POLICY, keyPolicy, throttledHeaders, WINDOW_SECONDS } from './rate-limit-headers.ts';

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

/** The answer to a failing credential from a throttled address. */
export function throttled(): ApiError {
  return new ApiError('rate_limited', 'Too many failed authentication attempts; wait a minute', { headers: throttledHeaders() });
}

/**
 * Counts a failed attempt against the client's address: true once the address is over the limit,
 * which is then refused for the next window (recorded in D1 in every database, as the limiter
 * cannot be asked without counting, and the keyed path reads the throttle in its key's own
 * database, in the same round trip as the key).
 */
export async function countAuthFailure(c: Context<AppEnv>): Promise<boolean> {
  const address = clientAddress(c);
  if ((await c.env.AUTH_FAILURE_LIMITER.limit({ key: address })).success) return false;
  const until = Date.now() + WINDOW_SECONDS * 1000;
  await Promise.all(readDatabases(c.env).map((db) => throttleAddress(db, address, until)));
  return true;
}

/** A failing credential refused before D1 was asked: counted, then 401, or 429 once over the limit. */
export async function authFailure(c: Context<AppEnv>, detail: string): Promise<ApiError> {
  return (await countAuthFailure(c)) ? throttled() : unauthorized(detail);
}

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
    const { rateLimitPerMinute, databaseMaxBytes } = readConfig(c.env);
    const policy = keyPolicy(rateLimitPerMinute);
    if (!(await c.env.KEY_RATE_LIMITER.limit({ key: keyHash })).success) {
      throw new ApiError('rate_limited', `This key is over its limit of ${rateLimitPerMinute} requests a minute`, { headers: exhausted(policy) });
    }
    // Replies that do not name a policy of their own carry the key's (src/http/middleware.ts).
    c.set('rateLimitPolicy', policy);
    const path = keyed(c.get('db'), { keyHash, now: Date.now(), address }, access, { database, maxBytes: databaseMaxBytes }, (to) => forwardTo(c, to));
    c.set('keyed', path);

    await next();

    // A failing key the workflow's batch refused, answered 401 by the error handler: counted here,
    // where it arrives, so the address is throttled once over the limit.
    if (c.error instanceof KeyRefusedError && c.error.failing) await countAuthFailure(c);
    const caller = path.caller;
    if (caller && (caller.lastUsedAt === null || caller.lastUsedAt < Date.now() - LAST_USED_GRANULARITY_MS)) {
      // In a session of its own: a second query in the request's session makes workerd's D1 API
      // compare two bookmarks with localeCompare, and the first localeCompare builds ICU's collator
      // (about 70 M instructions locally: a new isolate's first request paid for it). The reply's
      // X-D1-Bookmark is the request's own session's, read before this write either way.
      const binding = readDatabases(c.env)[c.get('database')];
      if (binding) c.executionCtx.waitUntil(touchKeyLastUsed(binding.withSession('first-primary'), caller.id, Date.now(), LAST_USED_GRANULARITY_MS).catch(() => undefined));
    }
    // A write that moved its database's size by a step (src/db/sizes.ts): recorded after the
    // reply, in sessions of their own (as above), so the request itself made one round trip.
    const bytes = sizeToRecord(path.size, databaseMaxBytes);
    if (bytes !== null) {
      const sessions = readDatabases(c.env).map((db) => db.withSession('first-primary'));
      c.executionCtx.waitUntil(recordDatabaseSize(sessions, c.get('database'), bytes, Date.now()).catch(() => undefined));
    }
  };
}

/**
 * The request moves to database `database`, where its key's account was moved (auth/keyed.ts): a
 * session there on the primary (the client's bookmark is of the database it left), for the rest of
 * the request and its reply's X-D1-Bookmark. Null when no such database is bound.
 */
function forwardTo(c: Context<AppEnv>, database: number): D1DatabaseSession | null {
  const binding = readDatabases(c.env)[database];
  if (!binding) return null;
  const session = binding.withSession('first-primary');
  c.set('db', session);
  c.set('database', database);
  return session;
}

/**
 * Problems with what was sent (a query string, a body, a path, a header) are found before the
 * route's workflow asks D1. On an API-key route the key is judged first (one more round trip, an
 * error path only), so a refused key hears about its key, not about its input: call this before
 * throwing such a problem. Elsewhere it does nothing.
 */
export async function judgeKeyFirst(c: Context<AppEnv>): Promise<void> {
  const path = c.get('keyed') as AppEnv['Variables']['keyed'] | undefined;
  if (path && path.caller === null) await path.run({});
}
