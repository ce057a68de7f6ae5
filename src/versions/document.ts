// The OpenAPI document of each version. The routes make the newest (scripts/lib/openapi-document.ts);
// an older version's is the newest with the parts its later changes altered put back as they were
// (each change's `<change>.document.ts`). The Worker keeps the newest document and, per older
// version, only those parts (src/versions/openapi-document.generated.ts), and applies them once per
// isolate when that version's document is first asked for.
import type { DocumentPart } from './change.ts';

/** Sets (or, for an undefined value, removes) each part in `document`, in order. */
export function applyParts<T extends object>(document: T, parts: readonly DocumentPart[]): T {
  for (const { pointer, value } of parts) {
    const path = pointer.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = path.pop();
    if (last === undefined) throw new Error(`applyParts: the empty pointer`);
    let parent = document as Record<string, unknown>;
    for (const segment of path) {
      const next = parent[segment];
      if (typeof next !== 'object' || next === null) throw new Error(`applyParts: ${pointer} names no place in the document`);
      parent = next as Record<string, unknown>;
    }
    if (value === undefined) delete parent[last];
    else parent[last] = structuredClone(value);
  }
  return document;
}
