// The OpenAPI document the Worker serves: generated at build time from the route definitions
// (`npm run openapi`, scripts/lib/openapi-document.ts) and kept in the bundle deflated (23 KiB of
// base64 instead of 216 KiB of JSON to upload and scan). Inflated by the platform's
// DecompressionStream the first time it is asked for, once per isolate: a constant.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { DEFLATED_DOCUMENT } from './openapi-document.generated.ts';

export type OpenAPIDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

/** Per isolate: the document never changes while the isolate lives. */
let inflated: Promise<OpenAPIDocument> | undefined;

/** The document, less `servers`. */
export function servedDocument(): Promise<OpenAPIDocument> {
  inflated ??= inflate(DEFLATED_DOCUMENT);
  return inflated;
}

function inflate(base64: string): Promise<OpenAPIDocument> {
  const deflated = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  const stream = new Blob([deflated]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Response(stream).json<OpenAPIDocument>();
}
