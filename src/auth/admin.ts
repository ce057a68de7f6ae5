// The admin API's guard: Authorization: Bearer <ADMIN_TOKEN>, compared in constant time.
// API keys never pass here, and the admin token never passes the API-key middleware (wrong shape).
// A throttled address is refused before the token is compared, so a guesser learns nothing from it.
import type { MiddlewareHandler } from 'hono';
import { isThrottled } from '../db/auth-throttles.ts';
import type { AppEnv } from '../env.ts';
import { sha256Hex } from './api-key.ts';
import { authFailure, bearerToken, clientAddress, throttled } from './bearer.ts';

const encoder = new TextEncoder();

async function sameSecret(given: string, expected: string): Promise<boolean> {
  // Hash both sides so the comparison takes the same time whatever the lengths.
  const [a, b] = await Promise.all([sha256Hex(given), sha256Hex(expected)]);
  return crypto.subtle.timingSafeEqual(encoder.encode(a), encoder.encode(b));
}

/**
 * One D1 query before the handler's own: the admin API is a low-volume dashboard API, and asking
 * first keeps the token comparison out of reach of a throttled address (README, decisions).
 */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (await isThrottled(c.get('db'), { address: clientAddress(c), now: Date.now() })) throw throttled();
  const expected = c.env.ADMIN_TOKEN;
  const given = bearerToken(c);
  if (!expected || !given || !(await sameSecret(given, expected))) {
    throw await authFailure(c, 'The admin API needs Authorization: Bearer <ADMIN_TOKEN>');
  }
  await next();
};
