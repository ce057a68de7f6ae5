// Wire timestamps: ISO 8601 UTC with six fractional digits and a Z, e.g. 2026-11-21T08:14:03.512000Z.
// Stored times are milliseconds, so the last three digits are always 000.
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 timestamp (any offset, optional fraction) to milliseconds; `null` if it is
 * not one. Impossible dates such as February 30 are refused rather than rolled over.
 */
export function parseRfc3339(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  if (day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  if (m[9] !== undefined && (Number(m[10]) > 23 || Number(m[11]) > 59)) return null;
  const ms = Date.parse(text.replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : null;
}
