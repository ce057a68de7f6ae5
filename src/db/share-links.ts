// Share-link statements. The API's statements reach a link only through a scenario the request's
// key owns (so no statement touches another account's links, and none runs for a refused key);
// the public view finds a link by the hash of its secret. share-links/workflows.ts puts them in
// batches. A create is written under the id its request drew, a revoke keeps the first revocation
// time: running either batch again after it committed (a retry after D1 lost the reply) changes
// nothing and reads back the same link.
import { sql } from 'drizzle-orm/sql/sql';
import { accountOfKey, type KeyAccess, type KeyCheck } from './api-keys.ts';
import { rowReader } from './rows.ts';
import { accountMoves, scenarios, shareLinks as links } from './schema.ts';
import { statement, type RawRow } from './statement.ts';

const p = sql.placeholder;

export const toShareLink = rowReader(links);

/** The id of the caller's scenario with that token, as a scalar sub-select (NULL for none). */
const ownedScenario = (access: KeyAccess) =>
  sql`(select ${scenarios.id} from ${scenarios} where ${scenarios.token} = ${p('token')} and ${scenarios.accountId} = ${accountOfKey(access)})`;

/** Links of a scenario that still open: not revoked, not expired (placeholder now). */
const liveLinksOf = (scenarioId: ReturnType<typeof sql>) =>
  sql`(select count(*) from ${links} where ${links.scenarioId} = ${scenarioId} and ${links.revokedAt} is null and ${links.expiresAt} > ${p('now')})`;

export interface NewShareLinkValues extends KeyCheck {
  token: string;
  id: string;
  secretHash: string;
  showNicknames: number;
  expiresAt: number;
  /** At most this many live links a scenario: the insert is skipped at as many. */
  maxLive: number;
}

/** A link to the caller's scenario, for a live read_write key, while the scenario has fewer than maxLive live links. */
export const insertShareLink = statement<NewShareLinkValues>(
  () => sql`insert into ${links} (id, scenario_id, account_id, secret_hash, show_nicknames, created_at, expires_at)
    select ${p('id')}, ${scenarios.id}, ${scenarios.accountId}, ${p('secretHash')}, ${p('showNicknames')}, ${p('now')}, ${p('expiresAt')}
    from ${scenarios} where ${scenarios.token} = ${p('token')} and ${scenarios.accountId} = ${accountOfKey('write')}
      and ${liveLinksOf(sql`${scenarios.id}`)} < ${p('maxLive')}
    on conflict do nothing`,
);

/** The caller's scenario's live links, counted (no row: no such scenario of the caller's). */
export const liveShareLinkCount = statement<KeyCheck & { token: string }>(
  () => sql`select ${liveLinksOf(sql`${scenarios.id}`)} as live from ${scenarios}
    where ${scenarios.token} = ${p('token')} and ${scenarios.accountId} = ${accountOfKey('read')}`,
);

/** One link of the caller's scenario. */
export const shareLinkOf = statement<KeyCheck & { token: string; id: string }>(
  () => sql`select * from ${links} where ${links.id} = ${p('id')} and ${links.scenarioId} = ${ownedScenario('read')}`,
);

/** The newest `limit` links of the caller's scenario, newest first. */
export const shareLinksOf = statement<KeyCheck & { token: string; limit: number }>(
  () => sql`select * from ${links} where ${links.scenarioId} = ${ownedScenario('read')} order by ${links.seq} desc limit ${p('limit')}`,
);

/** Revokes a link of the caller's scenario (read_write key); a revoked link keeps its first revocation time. */
export const revokeShareLink = statement<KeyCheck & { token: string; id: string }>(
  () => sql`update ${links} set revoked_at = coalesce(${links.revokedAt}, ${p('now')})
    where ${links.id} = ${p('id')} and ${links.scenarioId} = ${ownedScenario('write')}`,
);

// ---- The public view: by the secret's hash, only while the link is live ----

const liveBySecret = sql`${links.secretHash} = ${p('secretHash')} and ${links.revokedAt} is null and ${links.expiresAt} > ${p('now')}`;

/**
 * Counts a view of a live link; not while its account's writes are paused by a move (the page is
 * shown, the view is not counted: the copy being verified must not change under it).
 */
export const countShareView = statement<{ secretHash: string; now: number }>(
  () => sql`update ${links} set views = ${links.views} + 1, last_viewed_at = ${p('now')} where ${liveBySecret}
    and not exists (select 1 from ${accountMoves} where ${accountMoves.accountId} = ${links.accountId} and ${accountMoves.state} = 'paused')`,
);

/** What a live link shows: its scenario's current data (no row for an unknown, revoked or expired link, or a deleted scenario). */
export const sharedScenario = statement<{ secretHash: string; now: number }>(
  () => sql`select ${links.showNicknames} as show_nicknames, ${links.expiresAt} as expires_at,
      ${scenarios.stateId} as state_id, ${scenarios.scenarioData} as scenario_data, ${scenarios.version} as version
    from ${links} join ${scenarios} on ${scenarios.id} = ${links.scenarioId} where ${liveBySecret}`,
);

/** A row of sharedScenario: the link's and its scenario's columns (a join, so its own mapper). */
export interface SharedRow {
  showNicknames: boolean;
  expiresAt: number;
  stateId: number;
  scenarioData: string;
  version: number;
}

export function toSharedRow(row: RawRow): SharedRow {
  return {
    showNicknames: row.show_nicknames === 1,
    expiresAt: row.expires_at as number,
    stateId: row.state_id as number,
    scenarioData: row.scenario_data as string,
    version: row.version as number,
  };
}
