// Small readings of the request that several resources share.
import type { Context } from 'hono';

/**
 * The request's origin, without parsing its URL again: Request.url is always the URL parser's
 * serialisation, without credentials (Request refuses them), so the origin is all before the
 * path's first slash.
 */
export function requestOrigin(c: Context): string {
  const url = c.req.url;
  return url.slice(0, url.indexOf('/', url.indexOf('//') + 2));
}
