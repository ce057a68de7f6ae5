// Every version, newest first, with the changes it made (in the order they apply going forward),
// each change a module of ./changes/. The changelog (GET /api_versions), the version layer and the
// per-version OpenAPI documents are all read from here: a change is written once.
import type { VersionChange } from './change.ts';
import misspeltCursor from './changes/misspelt-cursor.ts';
import oneScenarioShape from './changes/one-scenario-shape.ts';
import stringTokens from './changes/string-tokens.ts';
import { API_VERSIONS, type ApiVersion } from '../api-versions.ts';

export interface Version {
  version: ApiVersion;
  /** When it was released (YYYY-MM-DD; a version's name is its date). */
  released: string;
  summary: string;
  /** What it changed since the version before it, in the order the changes apply going forward. */
  changes: readonly VersionChange[];
}

export const VERSIONS: readonly Version[] = [
  {
    version: '2026-12-01',
    released: '2026-12-01',
    summary: 'One scenario shape in every reply, string tokens, and the misspelt cursor retired.',
    changes: [oneScenarioShape, stringTokens, misspeltCursor],
  },
  {
    version: '2026-11-21',
    released: '2026-11-21',
    summary: 'The API as the specification shapes it: the detail form with status and message, a numeric scenario_data.token in it, and endding_before.',
    changes: [],
  },
];

