// Middleware every request passes: request id, response headers, body size limit, the database.
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createDb } from '../db/client.ts';
import type { AppEnv } from '../env.ts';
import { ApiError } from './problem.ts';

export const MAX_BODY_BYTES = 256 * 1024;

// Cloudflare sets cf-ray itself; elsewhere (wrangler dev) the client could send anything.
const RAY_ID = /^[0-9A-Za-z-]{1,64}$/;

/** X-Request-Id on every response: Cloudflare's ray id when there is one, else a fresh UUID. */
export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const ray = c.req.header('cf-ray');
  const requestId = ray !== undefined && RAY_ID.test(ray) ? ray : crypto.randomUUID();
  c.set('requestId', requestId);
  c.set('db', createDb(c.env.DB));
  await next();
  const headers = c.res.headers;
  headers.set('X-Request-Id', requestId);
  headers.set('X-Content-Type-Options', 'nosniff');
  if (headers.get('Content-Type') === 'application/json') headers.set('Content-Type', 'application/json; charset=utf-8');
  // Responses hold account data unless a route says otherwise (the chart, the public document).
  if (!headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store');
};

/** 413 for bodies over 256 KiB, whether announced by Content-Length or streamed in chunks. */
export const limitBodySize: MiddlewareHandler<AppEnv> = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB`);
  },
});
