// The OpenAPI documents the Worker serves: generated at build time from the route definitions
// (`npm run openapi`, scripts/lib/openapi-document.ts) and kept in the bundle deflated (23 KiB of
// base64 instead of 216 KiB of JSON to upload and scan): the newest API version's whole, and for
// each older version the parts its later changes altered (src/versions/document.ts). Inflated by
// the platform's DecompressionStream the first time a version is asked for, once per isolate.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { applyParts } from './document.ts';
import type { DocumentPart } from './change.ts';
import { NEWEST_API_VERSION, type ApiVersion } from '../api-versions.ts';
import { DEFLATED_DOCUMENT, DEFLATED_PARTS } from './openapi-document.generated.ts';

export type OpenAPIDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

/** Per isolate and version: a document never changes while the isolate lives. */
const inflated = new Map<ApiVersion, Promise<OpenAPIDocument>>();

/** The document of `version` (default: the newest), less `servers`. */
export function servedDocument(version: ApiVersion = NEWEST_API_VERSION): Promise<OpenAPIDocument> {
  let document = inflated.get(version);
  if (!document) {
    const parts = DEFLATED_PARTS[version];
    document =
      parts === undefined
        ? inflate<OpenAPIDocument>(DEFLATED_DOCUMENT)
        : Promise.all([servedDocument(), inflate<DocumentPart[]>(parts)]).then(([newest, changed]) => applyParts(structuredClone(newest), changed));
    inflated.set(version, document);
  }
  return document;
}

function inflate<T>(base64: string): Promise<T> {
  const deflated = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  const stream = new Blob([deflated]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Response(stream).json<T>();
}
