// Query strings: credentials never travel in one, and each route takes only the parameters it
// documents (the others are 400 invalid_query, like unknown body fields).
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { routeChecks } from './checks.ts';
import { ApiError, type FieldError } from './problem.ts';

/**
 * For every route that takes no query parameters: any parameter is 400 invalid_query, named in
 * `errors` as the validator names unknown ones. (A check, not an empty `query` schema: that would
 * make Hono's typed client demand `query: {}` on every call.)
 */
export function refuseQueryParameters(c: Context): void {
  if (!c.req.url.includes('?')) return;
  const names = Object.keys(c.req.queries());
  if (names.length === 0) return;
  const count = `${names.length} problem${names.length === 1 ? '' : 's'}`;
  throw new ApiError('invalid_query', `The query string has ${count}; see errors`, {
    errors: names.map((name) => ({ path: name, message: 'is not a known field' })),
  });
}

/** refuseQueryParameters as route middleware. */
export const noQueryParameters: MiddlewareHandler<AppEnv> = routeChecks(refuseQueryParameters);

// Parameter names people put credentials in (api_key, apiKey, X-API-Key, access_token,
// admin_token, …), compared without case or punctuation. No parameter of this API ends so.
const CREDENTIAL_NAME = /(key|token|secret|password|passwd|credentials?)$|^(auth|authorization|bearer)$/;
// An API key, or enough of one to matter (the 10-character display prefix is not secret).
const API_KEY_LIKE = /scn_[0-9A-Za-z]{16,}/;
const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

function looksLikeCredential(name: string, value: string): boolean {
  return CREDENTIAL_NAME.test(name.toLowerCase().replace(/[^a-z]/g, '')) || API_KEY_LIKE.test(name) || API_KEY_LIKE.test(value);
}

/**
 * 400 for a query string that carries a credential, on every path and before authentication, so
 * a key sent in a URL is never taken. Nothing of the query is logged or echoed: `errors` names a
 * parameter only when its name is plain (a name can be a key too).
 */
export const refuseCredentialsInQuery: MiddlewareHandler<AppEnv> = (c, next) => {
  const url = c.req.url;
  const start = url.indexOf('?');
  if (start === -1) return next();
  const errors: FieldError[] = [];
  for (const [name, value] of new URLSearchParams(url.slice(start + 1))) {
    if (!looksLikeCredential(name, value)) continue;
    const path = PLAIN_NAME.test(name) && !API_KEY_LIKE.test(name) ? name : '(query)';
    errors.push({ path, message: 'looks like a credential; credentials are not accepted in the query string' });
  }
  if (errors.length === 0) return next();
  throw new ApiError(
    'invalid_query',
    'Credentials never go in the URL: send the API key as Authorization: Bearer <API key>. ' +
      'A key that was put in a URL may have been recorded on its way (browser history, proxies); revoke it and use a new one',
    { errors },
  );
};
