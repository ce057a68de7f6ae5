// Share links' bounds (DECISIONS, "Share links"). No imports.

/** Live (neither revoked nor expired) links a scenario may have at once. */
export const MAX_LIVE_SHARE_LINKS = 20;
export const SHARE_LINK_MIN_SECONDS = 60 * 60;
export const SHARE_LINK_MAX_SECONDS = 90 * 24 * 60 * 60;
export const SHARE_LINK_DEFAULT_SECONDS = 7 * 24 * 60 * 60;
/** The list shows the newest this many links of a scenario (revoked and expired ones included). */
export const SHARE_LINK_LIST_LIMIT = 100;
