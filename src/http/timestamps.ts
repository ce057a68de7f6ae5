// Wire timestamps: ISO 8601 UTC with six fractional digits and a Z, e.g. 2026-11-21T08:14:03.512000Z.
// Stored times are milliseconds, so the last three digits are always 000.
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}

/** Parses an RFC 3339 timestamp (any offset, optional fraction) to milliseconds; `null` if it is not one. */
export function parseRfc3339(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(text)) return null;
  const ms = Date.parse(text.replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : null;
}
