// The specification's misspelt list cursor, which API versions from 2026-12-01 refuse, and what the
// refusal says. A leaf (it imports nothing): the newest validation and the version change that
// retired it (src/versions/changes/misspelt-cursor.ts) both name it.
export const MISSPELT_CURSOR = 'endding_before';
export const MISSPELT_CURSOR_HINT = 'is not a known field; use ending_before';
