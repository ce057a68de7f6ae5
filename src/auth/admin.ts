// The admin API's guard: Authorization: Bearer <ADMIN_TOKEN>, compared in constant time.
// API keys never pass here, and the admin token never passes the API-key middleware (wrong shape).
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { sha256Hex } from './api-key.ts';
import { authFailure, bearerToken } from './bearer.ts';

const encoder = new TextEncoder();

async function sameSecret(given: string, expected: string): Promise<boolean> {
  // Hash both sides so the comparison takes the same time whatever the lengths.
  const [a, b] = await Promise.all([sha256Hex(given), sha256Hex(expected)]);
  return crypto.subtle.timingSafeEqual(encoder.encode(a), encoder.encode(b));
}

export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  const given = bearerToken(c);
  if (!expected || !given || !(await sameSecret(given, expected))) {
    throw await authFailure(c, 'The admin API needs Authorization: Bearer <ADMIN_TOKEN>');
  }
  await next();
};
