// Conditional requests on a scenario's stored version (not its bytes: chart URLs change).
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
    const m = /^"v([1-9][0-9]{0,15})"$/.exec(t);
    if (m) versions.push(Number(m[1]));
  }
  return { any: false, versions };
}

/**
 * The versions a write's If-Match header allows: undefined when any version will do (no header,
 * or `*`), else those it names (possibly none, which no scenario matches).
 */
export function ifMatchVersions(header: string | undefined): number[] | undefined {
  if (header === undefined) return undefined;
  const condition = parseIfMatch(header);
  return condition.any ? undefined : condition.versions;
}
