// Scenario statements. Each names its account through the request's key (`accountOfKey`), so no
// statement can reach another account's rows and none runs for a refused key. The statements
// only build and bind; scenarios/workflows.ts puts them together into one batch per request and
// reads the outcome.
//
// Every change records its event (`recordEvent`) in the same batch, under an id the request drew
// and its retries carry. Each write is skipped once its event exists, so running a batch again
// after it committed (a retry after D1 lost the reply) changes nothing, and the event read back
// (`eventById`) tells the retry what its first try did, whatever happened in between.
import { sql, type SQL } from 'drizzle-orm/sql/sql';
import { accountOfKey, liveKey, type KeyAccess, type KeyCheck } from './api-keys.ts';
import { pruneThrottles } from './auth-throttles.ts';
import { runBatch, runOne } from './execute.ts';
import { roomFor, type Room } from './sizes.ts';
import { accounts, apiKeys, events, idempotencyRecords, scenarioPrograms, scenarios, type EventType, type IdempotencyRecord, type Scenario } from './schema.ts';
import { statement, type Session, type Statement } from './statement.ts';
import { rowReader } from './rows.ts';

const p = sql.placeholder;

export const toScenario = rowReader(scenarios);

export const toIdempotencyRecord = rowReader(idempotencyRecords);

const ownedBy = (access: KeyAccess): SQL => sql`${scenarios.accountId} = ${accountOfKey(access)}`;

// Keyset pagination, newest first: each page costs the same however many scenarios the account
// holds, and creates, saves or deletes elsewhere never shift it (the cursor is an id, which no
// write changes). Unfiltered, the page walks the (account_id, id, updated_at) index; a `state_id`
// or `year` filter walks (account_id, state_id | year, id); a `program` filter walks
// scenario_programs' (account_id, program, scenario_id), unless a state is given too. Other
// filters of a combination are checked on the rows that walk reaches; `updated_since` alone is
// checked in the index (docs/decisions.md, "Finding and exporting scenarios").

export type PageFrom = 'first' | 'after' | 'before';

/** The values of a page statement; the filter's fields are bound only when the statement has them. */
export interface PageValues extends KeyCheck {
  limit: number;
  cursor?: number;
  stateId?: number;
  year?: number;
  program?: string;
  updatedSince?: number;
}

/** Which filters a page statement applies (its SQL differs per combination). */
export interface PageShape {
  from: PageFrom;
  stateId: boolean;
  year: boolean;
  program: boolean;
  updatedSince: boolean;
}

function pageSql({ from, ...filter }: PageShape): SQL {
  const conditions: SQL[] = [ownedBy('read')];
  if (filter.stateId) conditions.push(sql`${scenarios.stateId} = ${p('stateId')}`);
  if (filter.year) conditions.push(sql`${scenarios.year} = ${p('year')}`);
  if (filter.updatedSince) conditions.push(sql`${scenarios.updatedAt} >= ${p('updatedSince')}`);
  const order = from === 'before' ? sql`asc` : sql`desc`;
  // With a state, the state's index drives and the program is a primary-key probe per row: a state
  // holds about 2 % of an account, a program often half of it (docs/decisions.md, "Finding and
  // exporting scenarios").
  if (filter.program && filter.stateId) {
    conditions.push(sql`exists (select 1 from ${scenarioPrograms} where ${scenarioPrograms.scenarioId} = ${scenarios.id} and ${scenarioPrograms.program} = ${p('program')})`);
  }
  if (!filter.program || filter.stateId) {
    if (from === 'after') conditions.push(sql`${scenarios.id} < ${p('cursor')}`);
    if (from === 'before') conditions.push(sql`${scenarios.id} > ${p('cursor')}`);
    return sql`select * from ${scenarios} where ${sql.join(conditions, sql` and `)} order by ${scenarios.id} ${order} limit ${p('limit')}`;
  }
  // CROSS JOIN keeps scenario_programs the outer loop, so the page walks its index in order.
  const programs = [sql`${scenarioPrograms.accountId} = ${accountOfKey('read')}`, sql`${scenarioPrograms.program} = ${p('program')}`];
  if (from === 'after') programs.push(sql`${scenarioPrograms.scenarioId} < ${p('cursor')}`);
  if (from === 'before') programs.push(sql`${scenarioPrograms.scenarioId} > ${p('cursor')}`);
  return sql`select ${scenarios}.* from ${scenarioPrograms} cross join ${scenarios} on ${scenarios.id} = ${scenarioPrograms.scenarioId}
    where ${sql.join([...programs, ...conditions], sql` and `)} order by ${scenarioPrograms.scenarioId} ${order} limit ${p('limit')}`;
}

const shapeName = (shape: PageShape) =>
  `${shape.from}${shape.stateId ? '+state' : ''}${shape.year ? '+year' : ''}${shape.program ? '+program' : ''}${shape.updatedSince ? '+updated' : ''}`;

// Every shape's statement, defined at module level like every statement (src/db/statement.ts):
// 3 directions × 16 filter combinations, each rendered the first time it is asked for.
const pageStatements = new Map<string, Statement<PageValues>>();
for (const from of ['first', 'after', 'before'] as const) {
  for (let bits = 0; bits < 16; bits++) {
    const shape: PageShape = { from, stateId: (bits & 1) !== 0, year: (bits & 2) !== 0, program: (bits & 4) !== 0, updatedSince: (bits & 8) !== 0 };
    pageStatements.set(shapeName(shape), statement<PageValues>(() => pageSql(shape)));
  }
}

/** The page statement of one shape. */
export function scenarioPage(shape: PageShape): Statement<PageValues> {
  const page = pageStatements.get(shapeName(shape));
  if (!page) throw new Error(`no page statement for ${shapeName(shape)}`);
  return page;
}

/** The caller's scenario with that token (no row for another account's token). */
export const scenarioByToken = statement<KeyCheck & { token: string }>(
  () => sql`select * from ${scenarios} where ${scenarios.token} = ${p('token')} and ${ownedBy('read')}`,
);

const tokenTaken = sql`exists (select 1 from ${scenarios} where ${scenarios.token} = ${p('token')})`;
/** This request's change is already done (by an earlier try of the same batch). */
const eventRecorded = sql`exists (select 1 from ${events} where ${events.id} = ${p('eventId')})`;

/**
 * The change's event, recorded from the scenario row it wrote (so only if this try wrote it).
 * A delete records its event from the row before the row goes.
 */
function recordEvent(type: EventType) {
  const version = type === 'scenario.deleted' ? sql`null` : sql`${scenarios.version}`;
  const which = type === 'scenario.deleted' ? sql`${ownedBy('write')} and not ${eventRecorded}` : sql`${scenarios.changeId} = ${p('eventId')}`;
  return statement<KeyCheck & { token: string; eventId: string }>(
    () => sql`insert into ${events} (id, account_id, type, token, version, created_at)
      select ${p('eventId')}, ${scenarios.accountId}, ${type}, ${scenarios.token}, ${version}, ${p('now')} from ${scenarios}
      where ${scenarios.token} = ${p('token')} and ${which}
      on conflict (id) do nothing`,
  );
}

export const recordCreated = recordEvent('scenario.created');
export const recordSaved = recordEvent('scenario.saved');
export const recordDeleted = recordEvent('scenario.deleted');

/** The event of this request's change, if it happened (now, or on an earlier try), and its scenario's id while it exists. */
export const eventById = statement<KeyCheck & { eventId: string }>(
  () => sql`select ${events.type} as type, ${events.token} as token, ${events.version} as version,
      (select ${scenarios.id} from ${scenarios} where ${scenarios.token} = ${events.token}) as scenario_id
    from ${events} where ${events.id} = ${p('eventId')} and ${events.accountId} = ${accountOfKey('read')}`,
);

/** A write the database's room guards (src/db/sizes.ts): the bytes it stores, by estimate. */
export interface SizedWrite extends Room {
  writeBytes: number;
}

export interface NewScenarioValues extends KeyCheck, SizedWrite {
  token: string;
  stateId: number;
  scenarioData: string;
  eventId: string;
  /** ACCOUNT_MAX_SCENARIOS: the insert is skipped for an account holding as many. */
  maxScenarios: number;
}

/** The key's account holds fewer scenarios than its quota (placeholder maxScenarios). */
const underQuota = sql`(select ${accounts.scenarioCount} from ${accounts} where ${accounts.id} = ${apiKeys.accountId}) < ${p('maxScenarios')}`;

/** A create without Idempotency-Key: inserted for a live read_write key, if the token is free and the account under its quota. */
export const insertScenario = statement<NewScenarioValues>(
  () => sql`insert into ${scenarios} (token, account_id, state_id, scenario_data, version, change_id, created_at, updated_at)
    select ${p('token')}, ${apiKeys.accountId}, ${p('stateId')}, ${p('scenarioData')}, 1, ${p('eventId')}, ${p('now')}, ${p('now')}
    from ${apiKeys} where ${liveKey('write')} and not ${tokenTaken} and not ${eventRecorded} and ${underQuota} and ${roomFor}`,
);

/** One more scenario on the account: only for the row this try inserted (a retry finds the event and skips). */
export const countCreated = statement<KeyCheck & { token: string; eventId: string }>(
  () => sql`update ${accounts} set ${sql.identifier(accounts.scenarioCount.name)} = ${accounts.scenarioCount} + 1
    where ${accounts.id} = (select ${scenarios.accountId} from ${scenarios} where ${scenarios.token} = ${p('token')} and ${scenarios.changeId} = ${p('eventId')})
    and not ${eventRecorded}`,
);

/** One scenario fewer: sent before the delete, only while the caller's row is there and this delete not yet recorded. */
export const countDeleted = statement<KeyCheck & { token: string; eventId: string }>(
  () => sql`update ${accounts} set ${sql.identifier(accounts.scenarioCount.name)} = ${accounts.scenarioCount} - 1
    where ${accounts.id} = (select ${scenarios.accountId} from ${scenarios} where ${scenarios.token} = ${p('token')} and ${ownedBy('write')})
    and not ${eventRecorded}`,
);

/** How many scenarios the caller's account holds: read back when a create did not happen, to tell a full account. */
export const scenarioCountOfCaller = statement<KeyCheck>(
  () => sql`select ${accounts.scenarioCount} as scenario_count from ${accounts} where ${accounts.id} = ${accountOfKey('write')}`,
);

export interface IdempotentCreateValues extends NewScenarioValues {
  idempotencyKey: string;
  requestHash: string;
  responseBody: string;
  /** Records created at or before this are past their 24 hours: a new create may take the key. */
  staleBefore: number;
}

/**
 * The stored reply of an idempotent create, claimed by this request unless a live record holds the
 * key. Skipped when the token is taken: by this request's own scenario (a retry), or, against odds
 * of 1 in 10^14, by another (then no record names this token and the workflow draws another).
 */
export const claimIdempotencyKey = statement<IdempotentCreateValues>(
  () => sql`insert into ${idempotencyRecords}
      (account_id, key, request_hash, scenario_token, response_status, response_body, created_at)
    select ${apiKeys.accountId}, ${p('idempotencyKey')}, ${p('requestHash')}, ${p('token')}, 201, ${p('responseBody')}, ${p('now')}
    from ${apiKeys} where ${liveKey('write')} and not ${tokenTaken} and not ${eventRecorded} and ${underQuota} and ${roomFor}
    on conflict (account_id, key) do update set request_hash = excluded.request_hash,
      scenario_token = excluded.scenario_token, response_status = excluded.response_status,
      response_body = excluded.response_body, created_at = excluded.created_at
    where ${idempotencyRecords.createdAt} <= ${p('staleBefore')}`,
);

/** The scenario of an idempotent create: inserted only if this request's claim of the key holds. */
export const insertClaimedScenario = statement<IdempotentCreateValues>(
  () => sql`insert into ${scenarios} (token, account_id, state_id, scenario_data, version, change_id, created_at, updated_at)
    select ${p('token')}, ${idempotencyRecords.accountId}, ${p('stateId')}, ${p('scenarioData')}, 1, ${p('eventId')}, ${p('now')}, ${p('now')}
    from ${idempotencyRecords}
    where ${idempotencyRecords.accountId} = ${accountOfKey('write')} and ${idempotencyRecords.key} = ${p('idempotencyKey')}
      and ${idempotencyRecords.scenarioToken} = ${p('token')} and ${idempotencyRecords.createdAt} = ${p('now')}
      and not ${tokenTaken} and not ${eventRecorded}`,
);

/** The record that holds the key after the claim (this request's, or the earlier create's), and its scenario's id. */
export const idempotencyRecordByKey = statement<KeyCheck & { idempotencyKey: string }>(
  () => sql`select ${idempotencyRecords}.*, (select ${scenarios.id} from ${scenarios} where ${scenarios.token} = ${idempotencyRecords.scenarioToken}) as scenario_id
    from ${idempotencyRecords}
    where ${idempotencyRecords.accountId} = ${accountOfKey('read')} and ${idempotencyRecords.key} = ${p('idempotencyKey')}`,
);

export interface SaveValues extends KeyCheck, SizedWrite {
  token: string;
  stateId: number;
  scenarioData: string;
  eventId: string;
}

const saveSet = sql`set scenario_data = ${p('scenarioData')}, state_id = ${p('stateId')}, updated_at = ${p('now')},
  version = ${scenarios.version} + 1, change_id = ${p('eventId')}`;
// Not yet saved by an earlier try, and within the database's room (507 otherwise).
const notYetSaved = sql`not ${eventRecorded} and ${roomFor}`;

/** Replaces the data of the caller's scenario (last write wins). */
export const saveScenario = statement<SaveValues>(
  () => sql`update ${scenarios} ${saveSet} where ${scenarios.token} = ${p('token')} and ${ownedBy('write')} and ${notYetSaved}`,
);

/**
 * The same, only while the scenario is at one of `versions` (a JSON array, from If-Match): the
 * check is part of the UPDATE, so of two racing saves with the same If-Match only one can win.
 */
export const saveScenarioIfVersion = statement<SaveValues & { versions: string }>(
  () => sql`update ${scenarios} ${saveSet} where ${scenarios.token} = ${p('token')} and ${ownedBy('write')} and ${notYetSaved}
    and ${scenarios.version} in (select value from json_each(${p('versions')}))`,
);

export interface DeleteValues extends KeyCheck {
  token: string;
  eventId: string;
}

export const deleteScenarioRow = statement<DeleteValues>(
  () => sql`delete from ${scenarios} where ${scenarios.token} = ${p('token')} and ${ownedBy('write')}`,
);

/** The stored create replies hold the scenario's data: they go with it. */
export const deleteScenarioReplies = statement<DeleteValues>(
  () => sql`delete from ${idempotencyRecords}
    where ${idempotencyRecords.accountId} = ${accountOfKey('write')} and ${idempotencyRecords.scenarioToken} = ${p('token')}`,
);

// The chart's query: its URL's signature names the account, no key is involved.
const ofAccountByToken = statement<{ accountId: number; token: string }>(
  () => sql`select * from ${scenarios} where ${scenarios.token} = ${p('token')} and ${scenarios.accountId} = ${p('accountId')}`,
);

export async function findScenarioOfAccount(session: Session, accountId: number, token: string): Promise<Scenario | null> {
  const [row] = await runOne(session, ofAccountByToken(session, { accountId, token }));
  return row ? toScenario(row) : null;
}

// Housekeeping of the hourly cron.
const pruneReplies = statement<{ before: number }>(() => sql`delete from ${idempotencyRecords} where ${idempotencyRecords.createdAt} < ${p('before')}`);
const pruneEvents = statement<{ before: number }>(() => sql`delete from ${events} where ${events.createdAt} < ${p('before')}`);

/**
 * Removes stored create replies older than `repliesBefore`, events older than `eventsBefore`, and
 * failed-authentication refusals that lapsed before `throttlesBefore`.
 */
export async function prune(session: Session, cutoffs: { repliesBefore: number; eventsBefore: number; throttlesBefore: number }): Promise<void> {
  await runBatch(session, {
    replies: pruneReplies(session, { before: cutoffs.repliesBefore }),
    events: pruneEvents(session, { before: cutoffs.eventsBefore }),
    throttles: pruneThrottles(session, { before: cutoffs.throttlesBefore }),
  });
}
