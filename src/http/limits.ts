// Bounds of what a request may carry, shared by the middleware that enforces them and the OpenAPI
// document that states them. Imports nothing, so either can use it without a cycle.

/** Request bodies over this size are 413. */
export const MAX_BODY_BYTES = 256 * 1024;

/** Request ids: Cloudflare's ray id when it looks like one, else a fresh UUID (see requestContext). */
export const REQUEST_ID_PATTERN = /^[0-9A-Za-z-]{1,64}$/;

/** D1 session bookmarks accepted in X-D1-Bookmark; anything else is ignored. */
export const BOOKMARK_PATTERN = /^[0-9A-Za-z-]{1,256}$/;
