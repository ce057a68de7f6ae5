// The API's versions by name, newest first. A leaf module (it imports nothing), so that the
// configuration, the database code and the version layer can all read it without an import cycle.
// What each version changed is in versions/versions.ts, built from the change modules of versions/changes/.

/** Every version the service serves, newest first. */
export const API_VERSIONS = ['2026-12-01', '2026-11-21'] as const;

export type ApiVersion = (typeof API_VERSIONS)[number];

/** The newest version: the shapes the routes and workflows build. */
export const NEWEST_API_VERSION: ApiVersion = API_VERSIONS[0];

/** The specification's shapes: accounts made before versions existed are pinned to it, and DEFAULT_API_VERSION defaults to it. */
export const SPEC_API_VERSION: ApiVersion = '2026-11-21';

const KNOWN: ReadonlySet<string> = new Set(API_VERSIONS);

/** `text` as a version this service knows, or undefined. */
export function knownApiVersion(text: string | null | undefined): ApiVersion | undefined {
  return text != null && KNOWN.has(text) ? (text as ApiVersion) : undefined;
}
