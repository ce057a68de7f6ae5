// Rate-limit headers (IETF draft-ietf-httpapi-ratelimit-headers). The Workers rate-limit binding
// says only whether a request is allowed, so the remaining quota (RateLimit) is sent only where it
// is known: on 429, where it is zero. Both limiters count per 60 s.
import { AUTH_FAILURES_PER_MINUTE } from '../env.ts';

export const WINDOW_SECONDS = 60;
export const FAILED_AUTH_POLICY = `"failed-auth";q=${AUTH_FAILURES_PER_MINUTE};w=${WINDOW_SECONDS}`;

export function keyPolicy(perMinute: number): string {
  return `"per-key";q=${perMinute};w=${WINDOW_SECONDS}`;
}

/** The headers of a 429 under `policy`: when to come back, and nothing left. */
export function exhausted(policy: string): Record<string, string> {
  const name = policy.slice(0, policy.indexOf(';'));
  return { 'Retry-After': String(WINDOW_SECONDS), 'RateLimit-Policy': policy, RateLimit: `${name};r=0;t=${WINDOW_SECONDS}` };
}

/** The headers of a failing credential's 429 from a throttled address. */
export function throttledHeaders(): Record<string, string> {
  return exhausted(FAILED_AUTH_POLICY);
}
