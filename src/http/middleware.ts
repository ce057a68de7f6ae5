// Middleware every request passes: request id, response headers, body size limit, the database.
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { readDatabases, type AppEnv } from '../env.ts';
import { bodyCutOff } from './body.ts';
import { BOOKMARK_PATTERN, MAX_BODY_BYTES, REQUEST_ID_PATTERN } from './limits.ts';
import { log, loggablePath } from './log.ts';
import { ApiError } from './problem.ts';

/** X-Request-Id on every response: Cloudflare's ray id when there is one, else a fresh UUID. */
export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const ray = c.req.header('cf-ray');
  // Cloudflare sets cf-ray itself; elsewhere (wrangler dev) a client could send anything.
  const requestId = ray !== undefined && REQUEST_ID_PATTERN.test(ray) ? ray : crypto.randomUUID();
  c.set('requestId', requestId);
  // The first database until the request names another (its API key, an id, a chart URL).
  useDatabase(c, 0);
  await next();
  const headers = c.res.headers;
  headers.set('X-Request-Id', requestId);
  const reached = (c.get('db') as D1DatabaseSession).getBookmark();
  if (reached) headers.set('X-D1-Bookmark', reached);
  if (headers.get('Content-Type') === 'application/json') headers.set('Content-Type', 'application/json; charset=utf-8');
  // Responses hold account data unless a route says otherwise (the chart, the public document).
  if (!headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store');
  // An API-key route's replies carry the key's rate-limit policy, unless a reply names its own
  // (a refused credential keeps the failed-auth policy it was answered under).
  const policy = c.get('rateLimitPolicy');
  if (policy !== undefined && !headers.has('RateLimit-Policy')) headers.set('RateLimit-Policy', policy);
  for (const [name, value] of RESPONSE_HEADERS) headers.set(name, value);
  // Failed requests are logged with what support needs to find them; successful ones are not
  // (Workers metrics count them, and a line per request costs CPU on the hot path). Only the
  // path: never a header, query string or body, so keys and the admin token never reach a log.
  // The platform's own invocation log, which would record the URL, is off (wrangler.toml).
  if (c.res.status >= 400) {
    log('info', 'request failed', {
      request_id: requestId,
      method: c.req.method,
      path: loggablePath(c.req.path),
      status: c.res.status,
      account_id: c.get('keyed')?.caller?.accountId,
    });
  }
};

/**
 * Puts a session on database `database` (its index in env.ts `readDatabases`) on the context, for
 * the request's queries; `false` when no such database is bound (the caller answers as for an
 * unknown id). D1 Sessions: reads may come from the nearest replica, never older than the client's
 * bookmark (its last reply's X-D1-Bookmark; a client's requests all go to its key's database);
 * without one, any replica will do until this request writes. Opening a session asks D1 nothing.
 */
export function useDatabase(c: Context<AppEnv>, database: number): boolean {
  const binding = readDatabases(c.env)[database];
  if (!binding) return false;
  const bookmark = c.req.header('X-D1-Bookmark');
  c.set('db', binding.withSession(bookmark !== undefined && BOOKMARK_PATTERN.test(bookmark) ? bookmark : 'first-unconstrained'));
  c.set('database', database);
  return true;
}

// CORS: any origin, no credentials (keys travel in Authorization, never in cookies).
const EXPOSED_HEADERS = ['ETag', 'Location', 'Retry-After', 'X-Request-Id', 'API-Version', 'Idempotent-Replayed', 'RateLimit-Policy', 'RateLimit', 'X-D1-Bookmark', 'Content-Disposition'];

/**
 * Preflights (OPTIONS) are answered by hono/cors. Other requests only need two constant headers,
 * set with the rest below: letting hono/cors run on them would make Hono copy every response into
 * a new Response (it touches the response before the handler runs), on every request.
 */
const preflight = cors({
  origin: '*',
  allowHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'X-D1-Bookmark', 'API-Version'],
  allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  exposeHeaders: EXPOSED_HEADERS,
  maxAge: 86400,
});
export const corsPreflight: MiddlewareHandler<AppEnv> = (c, next) => (c.req.method === 'OPTIONS' ? preflight(c, next) : next());

/**
 * On every response: CORS for simple requests, and browser-facing hardening headers (what
 * hono/secure-headers sends by default, as constants: the middleware rebuilt them on every
 * request). Resources stay loadable cross-origin: chart_img is meant for <img> tags on other sites.
 */
const RESPONSE_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Expose-Headers', EXPOSED_HEADERS.join(',')],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['Cross-Origin-Resource-Policy', 'cross-origin'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
];

const tooLarge = () => new ApiError('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB`);
const streamedBodyLimit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw tooLarge();
  },
});

/**
 * 413 for bodies over 256 KiB, whether announced by Content-Length or streamed in chunks. A
 * request that states its length is judged by the header alone (the runtime never delivers more
 * bytes than Content-Length says); only chunked bodies are counted as they stream, by
 * hono/body-limit, which buffers them. No GET or HEAD route reads a body, so theirs go unchecked.
 */
export const limitBodySize: MiddlewareHandler<AppEnv> = async (c, next) => {
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD') return next();
  const headers = c.req.raw.headers;
  const length = headers.get('Content-Length');
  if (length === null || headers.has('Transfer-Encoding')) {
    // hono/body-limit reads a streamed body whole before the route runs: an error before the route
    // is the stream's (the client hung up mid-body), not the service's.
    let routed = false;
    try {
      await streamedBodyLimit(c, async () => {
        routed = true;
        await next();
      });
    } catch (error) {
      if (routed || error instanceof ApiError) throw error;
      throw bodyCutOff();
    }
    return;
  }
  if (Number(length) > MAX_BODY_BYTES) throw tooLarge();
  return next();
};
