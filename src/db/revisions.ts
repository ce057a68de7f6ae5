// Scenario revisions: every version a create, save or restore stored, the newest `kept` per
// scenario. Revisions are reached only through a scenario the request's key owns (`ownedScenario`),
// so no statement can touch another account's history. The writes go into the batch of the change
// they record (scenarios/workflows.ts): like the event, a revision is copied from the row that
// change wrote, so running the batch again after it committed adds nothing.
import { sql } from 'drizzle-orm/sql/sql';
import { accountOfKey, type KeyAccess, type KeyCheck } from './api-keys.ts';
import { events, scenarioRevisions as revisions, scenarios } from './schema.ts';
import { statement } from './statement.ts';
import { rowReader } from './rows.ts';

const p = sql.placeholder;

/** A revision as the routes read it (its scenario is the request's). */
export const toRevision = rowReader(revisions, ['version', 'stateId', 'scenarioData', 'createdAt']);
export type RevisionRow = ReturnType<typeof toRevision>;

/** The id of the caller's scenario with that token, as a scalar sub-select (NULL for none). */
const ownedScenario = (access: KeyAccess) =>
  sql`(select ${scenarios.id} from ${scenarios} where ${scenarios.token} = ${p('token')} and ${scenarios.accountId} = ${accountOfKey(access)})`;

const columns = sql`${revisions.version} as version, ${revisions.stateId} as state_id, ${revisions.scenarioData} as scenario_data, ${revisions.createdAt} as created_at`;

// ---- Writes, each in the batch of the change it records ----

/** The version this request's change wrote (the row's change_id names the change), as its revision. */
export const recordRevision = statement<KeyCheck & { token: string; eventId: string }>(
  () => sql`insert into ${revisions} (scenario_id, version, state_id, scenario_data, created_at)
    select ${scenarios.id}, ${scenarios.version}, ${scenarios.stateId}, ${scenarios.scenarioData}, ${scenarios.updatedAt} from ${scenarios}
    where ${scenarios.token} = ${p('token')} and ${scenarios.changeId} = ${p('eventId')}
    on conflict do nothing`,
);

/** Keeps the newest `kept` revisions of the scenario: a range delete on the primary key. */
export const pruneRevisions = statement<KeyCheck & { token: string; kept: number }>(
  () => sql`delete from ${revisions} where ${revisions.scenarioId} = ${ownedScenario('write')}
    and ${revisions.version} <= (select ${scenarios.version} from ${scenarios} where ${scenarios.token} = ${p('token')}) - ${p('kept')}`,
);

/** A delete takes the whole history with it (sent before the scenario's row goes). */
export const deleteRevisions = statement<KeyCheck & { token: string }>(
  () => sql`delete from ${revisions} where ${revisions.scenarioId} = ${ownedScenario('write')}`,
);

/**
 * Restore: the scenario takes the data and state of one of its revisions as a new version, for a
 * live read_write key, once per event (like a save), and with `versions` (a JSON array from
 * If-Match; null for none) only while the scenario is at one of them.
 */
export const restoreRevision = statement<KeyCheck & { token: string; version: number; eventId: string; versions: string | null }>(
  () => sql`update ${scenarios}
    set (scenario_data, state_id) = (select ${revisions.scenarioData}, ${revisions.stateId} from ${revisions}
        where ${revisions.scenarioId} = ${scenarios.id} and ${revisions.version} = ${p('version')}),
      updated_at = ${p('now')}, version = ${scenarios.version} + 1, change_id = ${p('eventId')}
    where ${scenarios.token} = ${p('token')} and ${scenarios.accountId} = ${accountOfKey('write')}
      and not exists (select 1 from ${events} where ${events.id} = ${p('eventId')})
      and exists (select 1 from ${revisions} where ${revisions.scenarioId} = ${scenarios.id} and ${revisions.version} = ${p('version')})
      and (${p('versions')} is null or ${scenarios.version} in (select value from json_each(${p('versions')})))`,
);

// ---- Reads ----

/** The caller's scenario's current version (no row: no such scenario of the caller's). */
export const currentVersion = statement<KeyCheck & { token: string }>(
  () => sql`select ${scenarios.version} as version from ${scenarios}
    where ${scenarios.token} = ${p('token')} and ${scenarios.accountId} = ${accountOfKey('read')}`,
);

/** One revision; `version` null means the scenario's current one. */
export const revisionAt = statement<KeyCheck & { token: string; version: number | null }>(
  () => sql`select ${columns} from ${revisions} where ${revisions.scenarioId} = ${ownedScenario('read')}
    and ${revisions.version} = coalesce(${p('version')}, (select ${scenarios.version} from ${scenarios} where ${scenarios.token} = ${p('token')}))`,
);

// Pages, newest first, by version on the primary key: each costs the same however long the history.
export const firstRevisionPage = statement<KeyCheck & { token: string; limit: number }>(
  () => sql`select ${columns} from ${revisions} where ${revisions.scenarioId} = ${ownedScenario('read')}
    order by ${revisions.version} desc limit ${p('limit')}`,
);
export const revisionPageAfter = statement<KeyCheck & { token: string; limit: number; cursor: number }>(
  () => sql`select ${columns} from ${revisions} where ${revisions.scenarioId} = ${ownedScenario('read')}
    and ${revisions.version} < ${p('cursor')} order by ${revisions.version} desc limit ${p('limit')}`,
);
export const revisionPageBefore = statement<KeyCheck & { token: string; limit: number; cursor: number }>(
  () => sql`select ${columns} from ${revisions} where ${revisions.scenarioId} = ${ownedScenario('read')}
    and ${revisions.version} > ${p('cursor')} order by ${revisions.version} asc limit ${p('limit')}`,
);
