// The OpenAPI document the Worker serves: generated at build time from the route definitions
// (`npm run openapi`, scripts/lib/openapi-document.ts) and kept in the bundle deflated (23 KiB of
// base64 instead of 216 KiB of JSON to upload and scan). Inflated the first time it is asked for,
// once per isolate (about 3 ms): a constant, the same for every request.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { inflateRaw } from './inflate.ts';
import { DEFLATED_DOCUMENT, DOCUMENT_BYTES } from './openapi-document.generated.ts';

export type OpenAPIDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

let document: OpenAPIDocument | undefined;

/** The document, less `servers`. */
export function servedDocument(): OpenAPIDocument {
  if (document === undefined) {
    const deflated = Uint8Array.from(atob(DEFLATED_DOCUMENT), (char) => char.charCodeAt(0));
    document = JSON.parse(new TextDecoder().decode(inflateRaw(deflated, DOCUMENT_BYTES))) as OpenAPIDocument;
  }
  return document;
}
