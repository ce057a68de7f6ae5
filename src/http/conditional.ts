// Conditional requests on a scenario's stored version (not its bytes: chart URLs change): the
// headers' documentation, and their reading. Shared by the scenario and revision routes.
import * as z from 'zod';
import './zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated
import { ApiError } from './problem.ts';

export function etagFor(version: number): string {
  return `"v${version}"`;
}

function tags(header: string): string[] {
  return header.split(',').map((t) => t.trim()).filter(Boolean);
}

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2). */
export function noneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return tags(header).some((t) => t === '*' || t.replace(/^W\//, '') === etag);
}

/**
 * If-Match uses the strong comparison: weak tags never match. Returns `any` for `*`, else the
 * versions named (possibly none, which no scenario matches).
 */
export function parseIfMatch(header: string): { any: true } | { any: false; versions: number[] } {
  const list = tags(header);
  if (list.includes('*')) return { any: true };
  const versions: number[] = [];
  for (const t of list) {
    // An unquoted tag (If-Match: v2) is malformed, not a tag that names another version: 400, not 412.
    if (!ENTITY_TAG.test(t)) {
      throw new ApiError('invalid_header', 'If-Match must be * or a list of quoted ETags, as replies send them (e.g. "v3")', {
        errors: [{ path: 'if-match', message: `${JSON.stringify(t.slice(0, 40))} is not a quoted ETag such as "v3"` }],
      });
    }
    const m = /^"v([1-9][0-9]{0,15})"$/.exec(t);
    if (m) versions.push(Number(m[1]));
  }
  return { any: false, versions };
}

/** An entity tag (RFC 9110 §8.8.3): optionally W/, then a quoted string of etagc characters. */
const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\uffff]*"$/;

/**
 * An If-Match / If-None-Match header as documented (entity-tag lists, RFC 9110). The bounds are
 * stated for clients; If-Match's syntax is enforced by parseIfMatch (400 invalid_header).
 */
export const conditionalHeader = (description: string) =>
  z
    .string()
    .optional()
    .openapi({ description, maxLength: 1024, pattern: '^(\\*|(W/)?"[^"]*"( *, *(W/)?"[^"]*")*)$' });

/**
 * The versions a write's If-Match header allows: undefined when any version will do (no header,
 * or `*`), else those it names (possibly none, which no scenario matches).
 */
export function ifMatchVersions(header: string | undefined): number[] | undefined {
  if (header === undefined) return undefined;
  const condition = parseIfMatch(header);
  return condition.any ? undefined : condition.versions;
}
