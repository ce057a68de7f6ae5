// The admin API's guard (admin Worker): Authorization: Bearer <ADMIN_TOKEN>, compared in constant time.
// API keys never pass here, and the admin token never passes the API-key middleware (wrong shape).
// A throttled address is refused before the token is compared, so a guesser learns nothing from it:
// the right token too is refused while the address is throttled (DECISIONS, third round: the admin
// token keeps the strict rule). A token shorter than 32 characters could be guessed despite the
// throttle, so the admin API refuses to serve with one (a 500 naming the secret, never its value).
import type { MiddlewareHandler } from 'hono';
import { isThrottled } from '../../src/db/auth-throttles.ts';
import type { AppEnv } from '../../src/env.ts';
import { ApiError } from '../../src/http/problem.ts';
import { sha256Hex } from '../../src/auth/api-key.ts';
import { authFailure, bearerToken, clientAddress, throttled } from '../../src/auth/bearer.ts';
import { FAILED_AUTH_POLICY } from '../../src/auth/rate-limit-headers.ts';

const encoder = new TextEncoder();
/** The shortest admin token the admin API serves with. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

async function sameSecret(given: string, expected: string): Promise<boolean> {
  // Hash both sides so the comparison takes the same time whatever the lengths.
  const [a, b] = await Promise.all([sha256Hex(given), sha256Hex(expected)]);
  return crypto.subtle.timingSafeEqual(encoder.encode(a), encoder.encode(b));
}

/**
 * One D1 query before the handler's own: the admin API is a low-volume dashboard API, and asking
 * first keeps the token comparison out of reach of a throttled address (docs/decisions.md).
 */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (!expected || expected.length < ADMIN_TOKEN_MIN_LENGTH) {
    throw new ApiError(
      'internal_error',
      `The admin API is off: the ADMIN_TOKEN secret is ${expected ? `shorter than ${ADMIN_TOKEN_MIN_LENGTH} characters` : 'not set'}. ` +
        'The operator must set a long random one (wrangler secret put ADMIN_TOKEN)',
    );
  }
  if (await isThrottled(c.get('db'), { address: clientAddress(c), now: Date.now() })) throw throttled();
  const given = bearerToken(c);
  // No credential is no guess: it is not counted against the address, so requests that carry none
  // (a webhook delivery sent to the service itself, a crawler) cannot lock an address out.
  if (!given) {
    throw new ApiError('unauthorized', 'The admin API needs Authorization: Bearer <ADMIN_TOKEN>', {
      headers: { 'WWW-Authenticate': 'Bearer realm="scenario-service"', 'RateLimit-Policy': FAILED_AUTH_POLICY },
    });
  }
  if (!(await sameSecret(given, expected))) throw await authFailure(c, 'The admin API needs Authorization: Bearer <ADMIN_TOKEN>');
  await next();
};
