// Each change's document parts (build time and tests only: the Worker gets them, per version,
// through src/versions/openapi-document.generated.ts).
import type { DocumentPart, VersionChange } from './change.ts';
import misspeltCursor from './changes/misspelt-cursor.ts';
import { DOCUMENT as misspeltCursorDocument } from './changes/misspelt-cursor.document.ts';
import oneScenarioShape from './changes/one-scenario-shape.ts';
import { DOCUMENT as oneScenarioShapeDocument } from './changes/one-scenario-shape.document.ts';
import stringTokens from './changes/string-tokens.ts';
import { DOCUMENT as stringTokensDocument } from './changes/string-tokens.document.ts';
import type { ApiVersion } from '../api-versions.ts';
import { VERSIONS } from './versions.ts';

export const CHANGE_DOCUMENTS = new Map<VersionChange, readonly DocumentPart[]>([
  [oneScenarioShape, oneScenarioShapeDocument],
  [stringTokens, stringTokensDocument],
  [misspeltCursor, misspeltCursorDocument],
]);

/** The parts that turn the newest document into `version`'s: the later versions' changes undone, newest first. */
export function documentPartsFor(version: ApiVersion): DocumentPart[] {
  const index = VERSIONS.findIndex((v) => v.version === version);
  const undone = VERSIONS.slice(0, index).flatMap((newer) =>
    [...newer.changes].reverse().flatMap((change) => {
      const parts = CHANGE_DOCUMENTS.get(change);
      if (!parts) throw new Error(`the change "${change.title}" has no document parts (its <change>.document.ts)`);
      return parts;
    }),
  );
  return [...undone, { pointer: '/info/version', value: version }];
}
