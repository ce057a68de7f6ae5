// JSON request bodies are decoded as strict UTF-8. Request.text() and .json() replace bytes that
// are not UTF-8 with U+FFFD, so a client's broken text would be stored as something it never
// sent; here it is a 400 invalid_json instead.
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { routeChecks } from './checks.ts';
import { ApiError } from './problem.ts';

// The media types hono's JSON validator reads (hono/validator).
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

/** A body that is not a JSON document, or not sent as one. */
export function notJson(): ApiError {
  return new ApiError('invalid_json', 'The request body must be a JSON object sent as Content-Type: application/json');
}

/**
 * For the routes that take a JSON body, after the API key's middleware: reads the body once,
 * decodes it strictly, checks that it parses, and leaves the text where `c.req.json()` (the
 * validator) reads it, so the bytes are not kept twice. A body of another media type, or that
 * is not JSON, is refused here (as a check: after the key, src/http/checks.ts), not by the
 * validator. No body and no Content-Type is left to the validator (the route says whether its body
 * is required).
 */
export async function decodeStrictUtf8Json(c: Context): Promise<void> {
  const contentType = c.req.header('Content-Type');
  const mediaType = contentType?.split(';')[0]?.trim() ?? '';
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    if (contentType !== undefined || (await readBody(c)).byteLength > 0) throw notJson();
    return;
  }
  // Straight to arrayBuffer(): touching `body` first would make the runtime build a stream for it.
  const bytes = await readBody(c, false);
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid UTF-8');
  }
  // Parsed here, so that a body that is not JSON is refused after the key (as a check), not by the
  // validator; the validator parses the text again (c.req.json() reads only the text it caches).
  try {
    JSON.parse(text);
  } catch {
    throw notJson();
  }
  // Hono keeps each body reading in bodyCache as a promise; json() parses the cached text.
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
}

/**
 * The request's body, read to its end (its stream failing is the client's side: bodyCutOff);
 * `mayBeAbsent` asks first whether there is one.
 */
async function readBody(c: Context, mayBeAbsent = true): Promise<ArrayBuffer> {
  if (mayBeAbsent && c.req.raw.body === null) return new ArrayBuffer(0);
  try {
    return await c.req.raw.arrayBuffer();
  } catch {
    // Reading a request body fails only when its stream does: the client's side.
    throw bodyCutOff();
  }
}

/** decodeStrictUtf8Json as route middleware. */
export const strictUtf8JsonBody: MiddlewareHandler<AppEnv> = routeChecks(decodeStrictUtf8Json);
