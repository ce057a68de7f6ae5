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

/** A revision as stored: its patch is null for the current version (src/revisions/history.ts). */
export const toStoredRevision = rowReader(revisions, ['version', 'stateId', 'createdAt', 'patch']);
export type StoredRevision = ReturnType<typeof toStoredRevision>;

/** The id of the caller's scenario with that token, as a scalar sub-select (NULL for none). */
const ownedScenario = (access: KeyAccess) =>
  sql`(select ${scenarios.id} from ${scenarios} where ${scenarios.token} = ${p('token')} and ${scenarios.accountId} = ${accountOfKey(access)})`;

const columns = sql`${revisions.version} as version, ${revisions.stateId} as state_id, ${revisions.createdAt} as created_at, ${revisions.patch} as patch`;

// ---- Writes, each in the batch of the change it records ----

/**
 * The version this request's change wrote (the row's change_id names the change), as its revision:
 * no patch, as its data is the row's. The revision it replaces became a patch in the change's own
 * statement (the trigger on scenarios, drizzle/0013_revision_patches_only.sql).
 */
export const recordRevision = statement<KeyCheck & { token: string; eventId: string }>(
  () => sql`insert into ${revisions} (scenario_id, version, state_id, created_at)
    select ${scenarios.id}, ${scenarios.version}, ${scenarios.stateId}, ${scenarios.updatedAt} from ${scenarios}
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
 * The data of revision `version` of the scenario `token`, rebuilt in SQL (a restore writes it in
 * its own statement): from the current data, each newer revision's patch applied one operation at
 * a time (set, or remove for a lone path), newest first. A step of the walk is (version, op,
 * data): the data of `version` with the first `op` operations of the next older revision's patch
 * applied; once they all are, it is that revision's data. src/revisions/history.ts does the same
 * in the Worker for reads.
 */
const rebuiltData = sql`(with recursive doc(version, op, data) as (
      select ${scenarios.version}, 0, ${scenarios.scenarioData} from ${scenarios} where ${scenarios.token} = ${p('token')}
      union all
      select case when doc.op < json_array_length(older.patch) then doc.version else doc.version - 1 end,
        case when doc.op < json_array_length(older.patch) then doc.op + 1 else 0 end,
        case when doc.op < json_array_length(older.patch)
          then case when json_array_length(older.patch, '$[' || doc.op || ']') = 1
            then json_remove(doc.data, older.patch ->> ('$[' || doc.op || '][0]'))
            else json_set(doc.data, older.patch ->> ('$[' || doc.op || '][0]'), json(older.patch -> ('$[' || doc.op || '][1]'))) end
          else doc.data end
      from doc join ${revisions} as older
        on older.scenario_id = (select ${scenarios.id} from ${scenarios} where ${scenarios.token} = ${p('token')}) and older.version = doc.version - 1
      where doc.version > ${p('version')})
    select data from doc where version = ${p('version')} and op = 0)`;

/**
 * Restore: the scenario takes the data and state of one of its revisions as a new version, for a
 * live read_write key, once per event (like a save), and with `versions` (a JSON array from
 * If-Match; null for none) only while the scenario is at one of them.
 */
export const restoreRevision = statement<KeyCheck & { token: string; version: number; eventId: string; versions: string | null }>(
  () => sql`update ${scenarios}
    set scenario_data = ${rebuiltData},
      state_id = (select ${revisions.stateId} from ${revisions} where ${revisions.scenarioId} = ${scenarios.id} and ${revisions.version} = ${p('version')}),
      updated_at = ${p('now')}, version = ${scenarios.version} + 1, change_id = ${p('eventId')}
    where ${scenarios.token} = ${p('token')} and ${scenarios.accountId} = ${accountOfKey('write')}
      and not exists (select 1 from ${events} where ${events.id} = ${p('eventId')})
      and exists (select 1 from ${revisions} where ${revisions.scenarioId} = ${scenarios.id} and ${revisions.version} = ${p('version')})
      and (${p('versions')} is null or ${scenarios.version} in (select value from json_each(${p('versions')})))`,
);

// ---- Reads ----
// A revision is rebuilt in the Worker from the current data and the patches of every newer one,
// so each read fetches the current row with the revisions from the newest down to the oldest it
// shows (at most SCENARIO_REVISIONS_KEPT small rows), in one statement each.

/** The caller's scenario's current version and data (no row: no such scenario of the caller's). */
export const currentVersion = statement<KeyCheck & { token: string }>(
  () => sql`select ${scenarios.version} as version, ${scenarios.scenarioData} as scenario_data from ${scenarios}
    where ${scenarios.token} = ${p('token')} and ${scenarios.accountId} = ${accountOfKey('read')}`,
);

/** The revisions from the current one down to `version` (null: the current one only), newest first. */
export const revisionsDownTo = statement<KeyCheck & { token: string; version: number | null }>(
  () => sql`select ${columns} from ${revisions} where ${revisions.scenarioId} = ${ownedScenario('read')}
    and ${revisions.version} >= coalesce(${p('version')}, (select ${scenarios.version} from ${scenarios} where ${scenarios.token} = ${p('token')}))
    order by ${revisions.version} desc`,
);

// Pages, newest first, by version on the primary key; each holds the newer revisions its rows are
// rebuilt from too (versions have no gaps: every change adds the next one, pruning takes the oldest).
export const firstRevisionPage = statement<KeyCheck & { token: string; limit: number }>(
  () => sql`select ${columns} from ${revisions} where ${revisions.scenarioId} = ${ownedScenario('read')}
    order by ${revisions.version} desc limit ${p('limit')}`,
);
/** The page after `cursor` (`limit` versions below it, or below the current one), with every newer revision. */
export const revisionPageAfter = statement<KeyCheck & { token: string; limit: number; cursor: number }>(
  () => sql`select ${columns} from ${revisions} where ${revisions.scenarioId} = ${ownedScenario('read')}
    and ${revisions.version} >= min(${p('cursor')}, (select ${scenarios.version} from ${scenarios} where ${scenarios.token} = ${p('token')}) + 1) - ${p('limit')}
    order by ${revisions.version} desc`,
);
/** The page before `cursor`: every revision newer than it (the workflow keeps the `limit` oldest). */
export const revisionPageBefore = statement<KeyCheck & { token: string; cursor: number }>(
  () => sql`select ${columns} from ${revisions} where ${revisions.scenarioId} = ${ownedScenario('read')}
    and ${revisions.version} > ${p('cursor')} order by ${revisions.version} desc`,
);
