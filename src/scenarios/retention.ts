// Retention: SCENARIO_RETENTION_DAYS (env.ts readConfig) after the last save a scenario is expired
// (still readable; saving renews it). Unset or empty means scenarios never expire.
const DAY_MS = 86_400_000;

/** When the scenario expired (ms), or `null` while it is live. */
export function expiredAt(updatedAt: number, retentionDays: number | null, now: number): number | null {
  if (retentionDays === null) return null;
  const expiry = updatedAt + retentionDays * DAY_MS;
  return expiry <= now ? expiry : null;
}
