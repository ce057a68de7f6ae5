// What each scenario request does with D1, as one batch (one round trip, one transaction) sent
// through the request's keyed path (auth/keyed.ts): the statements the key guards and a read of
// the outcome, by name. The routes only validate, call one of these and shape the reply; nothing
// here knows HTTP.
//
// Every change records its event in its batch, under an id drawn per request (`newEventId`). D1
// may fail a call after committing it (the reply is lost): execute.ts then runs the same batch
// again, whose writes are skipped once the event exists, and the event read back tells the retry
// what its first try did, so the answer is the one the first try would have given, even if other
// requests changed the scenario in between.
import type { Keyed } from '../auth/keyed.ts';
import { DEFAULT_CONFIG } from '../env.ts';
import { deleteRevisions, pruneRevisions, recordRevision } from '../db/revisions.ts';
import type { Scenario } from '../db/schema.ts';
import {
  claimIdempotencyKey,
  countCreated,
  countDeleted,
  deleteScenarioReplies,
  deleteScenarioRow,
  eventById,
  idempotencyRecordByKey,
  insertClaimedScenario,
  insertScenario,
  recordCreated,
  recordDeleted,
  recordSaved,
  saveScenario as saveStatement,
  saveScenarioIfVersion,
  scenarioByToken,
  scenarioPage,
  type PageFrom,
  scenarioCountOfCaller,
  toIdempotencyRecord,
  toScenario,
} from '../db/scenarios.ts';
import type { RawRow } from '../db/statement.ts';
import { etagFor } from '../http/conditional.ts';
import { toPage, type PageRequest } from '../http/pagination.ts';
import { ApiError, STORAGE_FULL } from '../http/problem.ts';
import { wouldOverfill } from '../db/sizes.ts';
import { stateIdOf, toStoredData, type StoredScenarioData } from './data.ts';
import { stateOf, toScenarioForm, type ScenarioListItem, type ScenarioResponse } from './forms.ts';
import type { ScenarioFilter } from './filters.ts';
import type { ScenarioDataInput } from './schema.ts';
import { generateScenarioToken } from './token.ts';

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A new token is drawn when one is taken (odds of 1 in 10^14 per scenario); more is a bug. */
const TOKEN_DRAWS = 3;

/** The id of one request's change: its event's id, the same on every retry of the request. */
export function newEventId(): string {
  return `evt_${crypto.randomUUID().replaceAll('-', '')}`;
}

export const notFound = () => new ApiError('not_found', 'No scenario with that token');

/** The page statement's values and shape for a page request and a filter. */
function pageQuery(page: PageRequest<number>, filter: ScenarioFilter) {
  const from: PageFrom = page.endingBefore !== undefined ? 'before' : page.startingAfter !== undefined ? 'after' : 'first';
  const cursor = page.endingBefore ?? page.startingAfter;
  const shape = {
    from,
    stateId: filter.stateId !== undefined,
    year: filter.year !== undefined,
    program: filter.program !== undefined,
    updatedSince: filter.updatedSince !== undefined,
  };
  const values = { limit: page.limit + 1, ...(cursor === undefined ? {} : { cursor }), ...definedOnly(filter) };
  return { statement: scenarioPage(shape), values };
}

/** The filter's values, without the fields it leaves out (D1 binds no undefined). */
function definedOnly(filter: ScenarioFilter): { stateId?: number; year?: number; program?: string; updatedSince?: number } {
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
}

/**
 * A page of the caller's scenarios that match `filter`, newest first, and whether more lie in the
 * direction of travel: one round trip, the key checked in it.
 */
export async function listScenarios({ session, key, run }: Keyed, page: PageRequest<number>, filter: ScenarioFilter = {}) {
  const { statement, values } = pageQuery(page, filter);
  const { rows } = await run({ page: statement(session, { ...key, ...values }) });
  return toPage(rows.page.map(toScenario), page);
}

/** One of the caller's scenarios; 404 for an unknown token or another account's. */
export async function viewScenario({ session, key, run }: Keyed, token: string): Promise<Scenario> {
  const { rows } = await run({ scenario: scenarioByToken(session, { ...key, token }) });
  const [row] = rows.scenario;
  if (!row) throw notFound();
  return toScenario(row);
}

/** What a create knows of its scenario before the batch (the id comes back with the batch's outcome). */
interface NewScenario {
  token: string;
  accountId: number;
  stateId: number;
  scenarioData: string;
  createdAt: number;
}

/** The reply to a create: the scenario as created (version 1), chart_img left empty for the route to sign. */
function createdReply(scenario: NewScenario, id: number): ScenarioResponse {
  const row = { ...scenario, id, version: 1, changeId: null, updatedAt: scenario.createdAt, year: 0 };
  return { data: toScenarioForm(row, null, '') };
}

/**
 * The create its event names. A retry resends the batch with its token, so that is this try's;
 * a caller that runs a create again under the same event id (not a retry) gets the first one's.
 */
function createdOutcome(event: RawRow, input: ScenarioDataInput, created: NewScenario): Created {
  const token = event.token as string;
  const scenario = token === created.token ? created : { ...created, token, scenarioData: JSON.stringify(toStoredData(input, token)) };
  return { token, body: createdReply(scenario, event.scenario_id as number), replayed: false };
}

/**
 * A stored create reply, as the newest form with the scenario's id. Replies stored before API
 * versions existed (kept 24 hours) are in the specification's detail form, and are read as such.
 */
function storedReply(text: string, scenarioId: number, accountId: number): ScenarioResponse {
  const stored = JSON.parse(text) as ScenarioResponse | LegacyStoredReply;
  if (!('status' in stored.data)) return { data: { ...stored.data, id: scenarioId, user_id: accountId } };
  const { scenario } = stored.data;
  const data = { ...scenario.scenario_data, token: scenario.token };
  const createdAt = Date.parse(scenario.created_at);
  return createdReply({ token: scenario.token, accountId, stateId: stateOf(scenario.state.id).id, scenarioData: JSON.stringify(data), createdAt }, scenarioId);
}

/** A create reply stored before API versions: the specification's detail form, chart_img empty. */
interface LegacyStoredReply {
  data: { status: 'success'; scenario: { token: string; scenario_data: Record<string, unknown>; created_at: string; state: { id: number } } };
}

export interface Created {
  token: string;
  /** The scenario as created, chart_img left empty: the route signs it for the caller's origin. */
  body: ScenarioResponse;
  /** A replay of the reply an earlier create gave for the same Idempotency-Key. */
  replayed: boolean;
}

/**
 * POST /scenarios. With an Idempotency-Key, the claim of the key, the scenario and the stored reply
 * go in the same batch, and the outcome read back is the record holding the key: this request's
 * (created), or an earlier create's (replayed, or 422 for another body). Racing creates with one
 * key can therefore never both create.
 */
export async function createScenario(
  keyed: Keyed,
  input: ScenarioDataInput,
  eventId: string,
  idempotency?: { key: string; requestHash: string },
  maxScenarios: number = DEFAULT_CONFIG.accountMaxScenarios,
): Promise<Created> {
  const { session, key, run } = keyed;
  const now = key.now;
  for (let draw = 1; ; draw++) {
    const token = generateScenarioToken();
    const stored = toStoredData(input, token);
    const scenarioData = JSON.stringify(stored);
    const values = { ...key, token, stateId: stateIdOf(input), scenarioData, eventId, maxScenarios, writeBytes: writeBytesOf(scenarioData) };
    // The account is the key's, known once the batch has judged it; the reply is built after it.
    const created = (accountId: number): NewScenario => ({ token, accountId, stateId: values.stateId, scenarioData: values.scenarioData, createdAt: now });

    if (!idempotency) {
      const { caller, rows } = await run({
        scenario: insertScenario(session, values),
        count: countCreated(session, values),
        event: recordCreated(session, values),
        revision: recordRevision(session, values),
        outcome: eventById(session, values),
        held: scenarioCountOfCaller(session, values),
      });
      // The event says created (now or on an earlier try); without it the account is full, or the token was taken.
      const [event] = rows.outcome;
      if (event) return createdOutcome(event, input, created(caller.accountId));
      refuseOverQuota(rows.held, maxScenarios);
      refuseWhenFull(keyed, values.writeBytes);
      if (draw >= TOKEN_DRAWS) throw new Error('could not draw a free scenario token');
      continue;
    }

    // Stored without its ids (0 here), which the replay reads back with the record and the key.
    const storedBody = JSON.stringify(createdReply(created(0), 0));
    const claim = { ...values, idempotencyKey: idempotency.key, requestHash: idempotency.requestHash, responseBody: storedBody, staleBefore: now - IDEMPOTENCY_TTL_MS };
    const { caller, rows } = await run({
      claim: claimIdempotencyKey(session, claim),
      scenario: insertClaimedScenario(session, claim),
      count: countCreated(session, claim),
      event: recordCreated(session, claim),
      revision: recordRevision(session, claim),
      record: idempotencyRecordByKey(session, { ...key, idempotencyKey: idempotency.key }),
      outcome: eventById(session, claim),
      held: scenarioCountOfCaller(session, claim),
    });
    const [event] = rows.outcome;
    if (event) return createdOutcome(event, input, created(caller.accountId));
    const [recordRow] = rows.record;
    if (!recordRow) {
      // The key is live (judged above), so the claim was skipped for a full account or database, or a taken token.
      refuseOverQuota(rows.held, maxScenarios);
      refuseWhenFull(keyed, values.writeBytes);
      if (draw >= TOKEN_DRAWS) throw new Error('could not draw a free scenario token');
      continue;
    }
    const record = toIdempotencyRecord(recordRow);
    if (record.requestHash !== idempotency.requestHash) {
      throw new ApiError('idempotency_conflict', 'This Idempotency-Key was used with a different request body');
    }
    return { token: record.scenarioToken, body: storedReply(record.responseBody, recordRow.scenario_id as number, caller.accountId), replayed: true };
  }
}

/** 409 quota_exceeded when the account already holds its quota of scenarios (the create wrote nothing). */
function refuseOverQuota(held: RawRow[], maxScenarios: number): void {
  const count = held[0]?.scenario_count;
  if (typeof count === 'number' && count >= maxScenarios) {
    throw new ApiError('quota_exceeded', `This account holds ${count} scenarios, its quota of ${maxScenarios}; delete some before creating more`);
  }
}

/**
 * The bytes a write of `scenarioData` adds to its database, as the guard estimates them: the text
 * stored in the row (its revision is a patch, the event a short row: both far smaller).
 */
function writeBytesOf(scenarioData: string): number {
  return scenarioData.length;
}

/** 507 insufficient_storage when the write was skipped because it would take its database past DATABASE_MAX_BYTES. */
function refuseWhenFull(keyed: Keyed, writeBytes: number): void {
  if (wouldOverfill(keyed.size?.recorded ?? null, writeBytes, keyed.key.maxBytes)) throw new ApiError('insufficient_storage', STORAGE_FULL);
}

export interface Saved {
  scenario: Scenario;
  stored: StoredScenarioData;
}

/**
 * POST /scenarios/save. `versions` (from If-Match; omitted for none or `*`) makes the version
 * check part of the UPDATE. The event and the row read back tell saved, 412 (the row is at another
 * version) and 404 (no row) apart in the same round trip. The new version's revision, and the
 * pruning of those older than the newest `revisionsKept`, go in the same batch.
 */
export async function saveScenario(
  keyed: Keyed,
  token: string,
  input: ScenarioDataInput,
  eventId: string,
  versions?: number[],
  revisionsKept: number = DEFAULT_CONFIG.revisionsKept,
): Promise<Saved> {
  const outcome = await writeSave(keyed, token, input, eventId, versions, revisionsKept);
  // Not saved, and the row is there: its version is not one If-Match named.
  if ('current' in outcome) throw staleVersion(outcome.current.version);
  return outcome;
}

/**
 * The save's batch: saved (now, or by an earlier try of this batch), or not saved because the
 * scenario is at a version `versions` does not name, with the scenario as it is now; 404 for none.
 */
async function writeSave(
  keyed: Keyed,
  token: string,
  input: ScenarioDataInput,
  eventId: string,
  versions: number[] | undefined,
  revisionsKept: number,
): Promise<Saved | { current: Scenario }> {
  const { session, key, run } = keyed;
  const stored = toStoredData(input, token);
  const scenarioData = JSON.stringify(stored);
  const values = { ...key, token, stateId: stateIdOf(input), scenarioData, eventId, kept: revisionsKept, writeBytes: writeBytesOf(scenarioData) };
  const update = versions ? saveScenarioIfVersion(session, { ...values, versions: JSON.stringify(versions) }) : saveStatement(session, values);
  const { rows } = await run({
    update,
    event: recordSaved(session, values),
    revision: recordRevision(session, values),
    pruned: pruneRevisions(session, values),
    current: scenarioByToken(session, values),
    outcome: eventById(session, values),
  });
  const [row] = rows.current;
  // Deleted since (or never there): whatever this request did, there is nothing to show.
  if (!row) throw notFound();
  const [event] = rows.outcome;
  // Saved, now or on an earlier try: answer with what this save wrote and the version it made,
  // whatever came after it.
  if (event) {
    const scenario = { ...toScenario(row), stateId: values.stateId, scenarioData: values.scenarioData, version: event.version as number, changeId: eventId };
    return { scenario, stored };
  }
  // Not saved: for lack of room (whatever the version), or the scenario is at another version.
  refuseWhenFull(keyed, values.writeBytes);
  return { current: toScenario(row) };
}

/** Writes a patch tries before it gives up on a scenario that changes under every one of them. */
export const PATCH_ATTEMPTS = 10;
const PATCH_BACKOFF_CAP_MS = 160;

/**
 * PATCH /scenarios/{token}: `change` turns the stored data (the detail form's) into the new data,
 * or throws (422, 409). One round trip reads the scenario, a second writes the change guarded by
 * the version read, so a save that came in between is never overwritten: the write then fails,
 * its batch reads the scenario back, and the change is made again on what is stored now (each
 * further attempt one more round trip after a short jittered wait, at most PATCH_ATTEMPTS writes;
 * then 409). `ifMatch` (the
 * versions If-Match names) is checked on every version the change would be made on: 412 once the
 * scenario is at another. A retry of the write after D1 lost its reply finds its event and
 * answers with what it wrote (writeSave).
 */
export async function patchScenario(
  keyed: Keyed,
  token: string,
  change: (current: ScenarioListItem['scenario_data']) => ScenarioDataInput,
  eventId: string,
  ifMatch?: number[],
  revisionsKept: number = DEFAULT_CONFIG.revisionsKept,
): Promise<Saved> {
  let current = await viewScenario(keyed, token);
  for (let attempt = 1; ; attempt++) {
    if (ifMatch && !ifMatch.includes(current.version)) throw staleVersion(current.version);
    const input = change(JSON.parse(current.scenarioData) as ScenarioListItem['scenario_data']);
    const outcome = await writeSave(keyed, token, input, eventId, [current.version], revisionsKept);
    if (!('current' in outcome)) return outcome;
    if (attempt >= PATCH_ATTEMPTS) {
      throw new ApiError('conflict', `The scenario changed under each of ${PATCH_ATTEMPTS} attempts to apply this patch; nothing was changed, send it again`);
    }
    current = outcome.current;
    // Jittered, growing waits spread patches that keep colliding with each other (at most ~1 s in all).
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(PATCH_BACKOFF_CAP_MS, 5 * 2 ** attempt)));
  }
}

/** 412: the scenario is no longer at a version If-Match named; the current ETag comes with it. */
export function staleVersion(version: number): ApiError {
  return new ApiError('precondition_failed', 'The scenario has changed since that ETag; fetch it again and reapply your change', {
    headers: { ETag: etagFor(version) },
  });
}

/**
 * DELETE /scenarios/{token}: the scenario, its revisions and its stored create replies; the event
 * recorded before the row goes, read back, tells deleted from 404.
 */
export async function deleteScenario({ session, key, run }: Keyed, token: string, eventId: string): Promise<void> {
  const values = { ...key, token, eventId };
  const { rows } = await run({
    count: countDeleted(session, values),
    event: recordDeleted(session, values),
    revisions: deleteRevisions(session, values),
    scenario: deleteScenarioRow(session, values),
    replies: deleteScenarioReplies(session, values),
    outcome: eventById(session, values),
  });
  if (rows.outcome.length === 0) throw notFound();
}
