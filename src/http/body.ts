// JSON request bodies are decoded as strict UTF-8. Request.text() and .json() replace bytes that
// are not UTF-8 with U+FFFD, so a client's broken text would be stored as something it never
// sent; here it is a 400 invalid_json instead.
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { ApiError } from './problem.ts';

// The media types hono's JSON validator reads (hono/validator); other bodies are left to it (415).
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;
// Stateless between calls (no `stream` option), so one per isolate serves every request. A
// leading BOM is dropped, as Request.text() drops it.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * A body that could not be read to its end: the client stopped sending it (hung up, or its
 * connection broke). Nothing was written, and it is no fault of the service: an ordinary refused
 * request (logged as "request failed", never as an unexpected error), answered to nobody.
 */
export function bodyCutOff(): ApiError {
  return new ApiError('invalid_json', 'The request body ended before it was complete (the connection was closed while it was being sent)');
}

/**
 * For the routes that take a JSON body, after authentication: reads the body once, decodes it
 * strictly, and leaves the text where `c.req.json()` (the validator) reads it, so the bytes are
 * not kept twice.
 */
export async function decodeStrictUtf8Json(c: Context): Promise<void> {
  const mediaType = c.req.header('Content-Type')?.split(';')[0]?.trim() ?? '';
  if (!JSON_MEDIA_TYPE.test(mediaType)) return;
  let bytes: ArrayBuffer;
  try {
    bytes = await c.req.raw.arrayBuffer();
  } catch {
    // Reading a request body fails only when its stream does: the client's side.
    throw bodyCutOff();
  }
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid UTF-8');
  }
  // Hono keeps each body reading in bodyCache as a promise; json() parses the cached text.
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
}

/** decodeStrictUtf8Json as route middleware. */
export const strictUtf8JsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  await decodeStrictUtf8Json(c);
  await next();
};
