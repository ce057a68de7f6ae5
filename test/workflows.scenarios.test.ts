// The scenario workflows of src/scenarios/workflows.ts called directly against the local D1 (no
// Worker in between): keyset paging, scoping by the key's account, refused keys (which must write
// nothing), If-Match saves, idempotent creates, deletes, the one event every change records (and
// none for a refused one), and that a call run again with the same event id (as a retry is) never
// applies its write twice. test/db.retries.test.ts races a retry against other requests.
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { keyed } from '../src/auth/keyed.ts';
import { generateApiKey, hashApiKey } from '../src/auth/api-key.ts';
import { issueApiKey } from '../src/auth/issue-key.ts';
import { KeyRefusedError, type Caller } from '../src/auth/keyed.ts';
import type { KeyRefusal } from '../src/db/api-keys.ts';
import { insertAccount } from '../src/db/accounts.ts';
import { revokeApiKey, type KeyCheck } from '../src/db/api-keys.ts';
import { throttleAddress } from '../src/db/auth-throttles.ts';
import { runOne } from '../src/db/execute.ts';
import { insertScenario, toScenario } from '../src/db/scenarios.ts';
import type { KeyScope, Scenario } from '../src/db/schema.ts';
import { ApiError, type ProblemCode } from '../src/http/problem.ts';
import { toStoredData } from '../src/scenarios/data.ts';
import { ScenarioDataInputSchema, type ScenarioDataInput } from '../src/scenarios/schema.ts';
import { US_STATES } from '../src/scenarios/states.ts';
import { generateScenarioToken } from '../src/scenarios/token.ts';
import { createScenario, deleteScenario, listScenarios, newEventId, saveScenario, viewScenario } from '../src/scenarios/workflows.ts';
import { scenarioData, uniqueEmail } from './helpers/api.ts';
import { failure } from './helpers/contract.ts';
import { faultyD1 } from './helpers/faulty-d1.ts';

const DAY = 24 * 60 * 60 * 1000;
/** The client address the keys are presented from; never throttled here. */
const ADDRESS = '192.0.2.1';

/** A key as the workflows see it: its hash, judged at `now`. */
interface TestKey {
  accountId: number;
  keyId: number;
  keyHash: string;
  at(now?: number): KeyCheck;
}

/** An account (or the one given) with a fresh key, made with the admin-level functions. */
async function newKey(options: { scope?: KeyScope; expiresAt?: number | null; accountId?: number } = {}): Promise<TestKey> {
  let accountId = options.accountId;
  if (accountId === undefined) {
    const account = await insertAccount(env.DB, { name: 'Workflow Test', email: uniqueEmail(), now: Date.now() });
    if (!account) throw new Error('account not inserted');
    accountId = account.id;
  }
  const issued = await issueApiKey(env.DB, accountId, { name: null, scope: options.scope ?? 'read_write', expiresAt: options.expiresAt ?? null, now: Date.now() });
  if (!issued) throw new Error('key not issued');
  const keyHash = await hashApiKey(issued.key);
  return { accountId, keyId: issued.row.id, keyHash, at: (now = Date.now()) => ({ keyHash, now, address: ADDRESS }) };
}

/** Validated input, as the routes hand it to the workflows. */
const input = (overrides: Record<string, unknown> = {}): ScenarioDataInput => ScenarioDataInputSchema.parse(scenarioData(overrides));

async function rowOf(token: string): Promise<Scenario | null> {
  const row = await env.DB.prepare('select * from scenarios where token = ?').bind(token).first<Record<string, unknown>>();
  return row ? toScenario(row) : null;
}

async function tokensOf(accountId: number): Promise<string[]> {
  const { results } = await env.DB.prepare('select token from scenarios where account_id = ? order by id').bind(accountId).all<{ token: string }>();
  return results.map((r) => r.token);
}

async function recordsOf(accountId: number) {
  const { results } = await env.DB.prepare('select key, scenario_token, request_hash, created_at from idempotency_records where account_id = ? order by key')
    .bind(accountId)
    .all<{ key: string; scenario_token: string; request_hash: string; created_at: number }>();
  return results;
}

interface EventRow {
  id: string;
  account_id: number;
  type: string;
  token: string;
  version: number | null;
  created_at: number;
}

/** The events of an account, in the order they were recorded. */
async function eventsOf(accountId: number): Promise<EventRow[]> {
  const { results } = await env.DB.prepare('select id, account_id, type, token, version, created_at from events where account_id = ? order by seq')
    .bind(accountId)
    .all<EventRow>();
  return results;
}

async function eventById(id: string): Promise<EventRow | null> {
  return env.DB.prepare('select id, account_id, type, token, version, created_at from events where id = ?').bind(id).first<EventRow>();
}

async function eventCount(): Promise<number> {
  return (await env.DB.prepare('select count(*) as n from events').first<{ n: number }>())!.n;
}

/** Every row a workflow could write (this file's D1 is its own): to prove a call wrote nothing. */
async function snapshot() {
  const all = async (table: string, order: string) => (await env.DB.prepare(`select * from ${table} order by ${order}`).all()).results;
  return {
    scenarios: await all('scenarios', 'id'),
    idempotencyRecords: await all('idempotency_records', 'account_id, key'),
    events: await all('events', 'seq'),
    apiKeys: await all('api_keys', 'id'),
  };
}

/** Creates a scenario through the workflow; its row. */
async function created(key: TestKey, data: ScenarioDataInput = input(), now = Date.now()): Promise<Scenario> {
  const result = await createScenario(keyed(env.DB, key.at(now), 'write'), data, newEventId());
  return (await rowOf(result.token))!;
}

/** n scenarios of the key's account; their ids, oldest first. */
async function createdIds(key: TestKey, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) ids.push((await created(key)).id);
  return ids;
}

async function expectApiError(call: Promise<unknown>, code: ProblemCode): Promise<ApiError> {
  const error = await failure(call);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe(code);
  return error as ApiError;
}

async function expectRefused(call: Promise<unknown>, reason: KeyRefusal): Promise<void> {
  const error = await failure(call);
  expect(error).toBeInstanceOf(KeyRefusedError);
  expect((error as KeyRefusedError).reason).toBe(reason);
}

const idsOf = (rows: Scenario[]) => rows.map((r) => r.id);

let owner: TestKey;
beforeEach(async () => {
  owner = await newKey();
});

describe('listScenarios', () => {
  it('lists newest first up to the limit, with hasMore', async () => {
    const ids = await createdIds(owner, 5);
    const page = await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 3 });
    expect(idsOf(page.rows)).toEqual(ids.slice(2).reverse());
    expect(page.hasMore).toBe(true);
  });

  it('gives hasMore false when the limit equals what is left', async () => {
    const ids = await createdIds(owner, 3);
    const page = await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 3 });
    expect(idsOf(page.rows)).toEqual([...ids].reverse());
    expect(page.hasMore).toBe(false);
  });

  it('gives the items older than startingAfter', async () => {
    const ids = await createdIds(owner, 6);
    const page = await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 2, startingAfter: ids[4] });
    expect(idsOf(page.rows)).toEqual([ids[3], ids[2]]);
    expect(page.hasMore).toBe(true);
    const last = await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 2, startingAfter: ids[2] });
    expect(idsOf(last.rows)).toEqual([ids[1], ids[0]]);
    expect(last.hasMore).toBe(false);
  });

  it('gives the items just newer than endingBefore, still newest first', async () => {
    const ids = await createdIds(owner, 6);
    const page = await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 2, endingBefore: ids[1] });
    expect(idsOf(page.rows)).toEqual([ids[3], ids[2]]);
    expect(page.hasMore).toBe(true);
    const last = await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 10, endingBefore: ids[3] });
    expect(idsOf(last.rows)).toEqual([ids[5], ids[4]]);
    expect(last.hasMore).toBe(false);
  });

  it('walks forward and backward over every row exactly once', async () => {
    const ids = await createdIds(owner, 17);
    const forward: number[] = [];
    let page = await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 4 });
    forward.push(...idsOf(page.rows));
    while (page.hasMore) {
      page = await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 4, startingAfter: forward.at(-1) });
      forward.push(...idsOf(page.rows));
    }
    expect(forward).toEqual([...ids].reverse());

    const backward: number[] = [ids[0]!];
    let cursor = ids[0];
    for (;;) {
      const back = await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 4, endingBefore: cursor });
      backward.push(...idsOf(back.rows).reverse());
      if (!back.hasMore) break;
      cursor = back.rows[0]!.id;
    }
    expect(backward).toEqual(ids);
  });

  it('pages from the id of a deleted row', async () => {
    const ids = await createdIds(owner, 5);
    const gone = (await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 10 })).rows.find((r) => r.id === ids[2])!;
    await deleteScenario(keyed(env.DB, owner.at(), 'write'), gone.token, newEventId());
    expect(idsOf((await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 10, startingAfter: gone.id })).rows)).toEqual([ids[1], ids[0]]);
    expect(idsOf((await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 10, endingBefore: gone.id })).rows)).toEqual([ids[4], ids[3]]);
  });

  it('answers an empty page for an account without scenarios', async () => {
    const page = await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 10 });
    expect([page.rows, page.hasMore]).toEqual([[], false]);
  });

  it("never returns another account's rows, whatever the cursor", async () => {
    const other = await newKey();
    const mine: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < 4; i++) {
      mine.push((await created(owner)).id);
      theirs.push((await created(other)).id);
    }
    expect(idsOf((await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 100 })).rows)).toEqual([...mine].reverse());
    expect(idsOf((await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 100, startingAfter: theirs[2] })).rows)).toEqual([mine[2], mine[1], mine[0]]);
    expect(idsOf((await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 100, endingBefore: theirs[1] })).rows)).toEqual([mine[3], mine[2]]);
    expect(idsOf((await listScenarios(keyed(env.DB, other.at(), 'read'), { limit: 100 })).rows)).toEqual([...theirs].reverse());
  });

  it('lists the account’s scenarios for each of its keys, a read-only one too', async () => {
    const ids = await createdIds(owner, 2);
    const reader = await newKey({ accountId: owner.accountId, scope: 'read' });
    const page = await listScenarios(keyed(env.DB, reader.at(), 'read'), { limit: 10 });
    expect(idsOf(page.rows)).toEqual([...ids].reverse());
  });
});

describe('viewScenario', () => {
  it("gives the account's scenario by token", async () => {
    const row = await created(owner, input({ year: 2031 }));
    const scenario = await viewScenario(keyed(env.DB, owner.at(), 'read'), row.token);
    expect(scenario).toEqual(row);
    expect(JSON.parse(scenario.scenarioData).year).toBe(2031);
  });

  it("is not_found for another account's token, which stays in place", async () => {
    const other = await newKey();
    const row = await created(other);
    // The key was accepted before the refusal: the keyed path names its caller (for the log line).
    const path = keyed(env.DB, owner.at(), 'read');
    await expectApiError(viewScenario(path, row.token), 'not_found');
    expect(path.caller?.accountId).toBe(owner.accountId);
    expect(await viewScenario(keyed(env.DB, other.at(), 'read'), row.token)).toEqual(row);
  });

  it('is not_found for an unknown token', async () => {
    await expectApiError(viewScenario(keyed(env.DB, owner.at(), 'read'), '123456789012345'), 'not_found');
  });
});

describe('createScenario', () => {
  it('stores one scenario with the validated data, version 1 and the event id, records one created event, and answers the scenario (newest form)', async () => {
    const data = input({ state_id: 6, year: 2027 });
    const now = Date.now();
    const eventId = newEventId();
    const result = await createScenario(keyed(env.DB, owner.at(now), 'write'), data, eventId);
    expect(result.replayed).toBe(false);
    expect(await tokensOf(owner.accountId)).toEqual([result.token]);
    const row = (await rowOf(result.token))!;
    expect(row).toMatchObject({ accountId: owner.accountId, stateId: 6, version: 1, changeId: eventId, createdAt: now, updatedAt: now });
    expect(await eventsOf(owner.accountId)).toEqual([
      { id: eventId, account_id: owner.accountId, type: 'scenario.created', token: result.token, version: 1, created_at: now },
    ]);
    expect(JSON.parse(row.scenarioData)).toEqual(toStoredData(data, result.token));
    expect(result.body.data).toMatchObject({
      id: row.id,
      user_id: owner.accountId,
      token: result.token,
      version: 1,
      expired: null,
      chart_img: '',
      state: { id: 6, name: 'California', slug: 'california' },
      scenario_data: { token: result.token, year: 2027 },
    });
  });

  it('draws a fresh token for every create', async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 5; i++) tokens.add((await createScenario(keyed(env.DB, owner.at(), 'write'), input(), newEventId())).token);
    expect(tokens.size).toBe(5);
    expect((await tokensOf(owner.accountId)).sort()).toEqual([...tokens].sort());
  });

  it('records one created event per create, each under its own id, in the order of the creates', async () => {
    const ids = [newEventId(), newEventId(), newEventId()];
    const tokens: string[] = [];
    for (const id of ids) tokens.push((await createScenario(keyed(env.DB, owner.at(), 'write'), input(), id)).token);
    const events = await eventsOf(owner.accountId);
    expect(events.map((e) => [e.id, e.type, e.token, e.version])).toEqual(ids.map((id, i) => [id, 'scenario.created', tokens[i], 1]));
    expect(ids.every((id) => /^evt_[0-9a-f]{32}$/.test(id))).toBe(true);
  });
});

describe('saveScenario', () => {
  it('replaces the data and state, bumps the version and updatedAt, keeps createdAt', async () => {
    const row = await created(owner);
    const later = row.updatedAt + 5000;
    const data = input({ state_id: 6, year: 2040 });
    const eventId = newEventId();
    const saved = await saveScenario(keyed(env.DB, owner.at(later), 'write'), row.token, data, eventId);
    expect(saved.scenario).toMatchObject({ id: row.id, token: row.token, stateId: 6, version: 2, changeId: eventId, updatedAt: later, createdAt: row.createdAt });
    expect(saved.stored).toEqual(toStoredData(data, row.token));
    expect(JSON.parse(saved.scenario.scenarioData)).toEqual(saved.stored);
    expect(await rowOf(row.token)).toEqual(saved.scenario);
  });

  it('records one saved event per save, with the version it made', async () => {
    const row = await created(owner);
    const later = row.updatedAt + 1000;
    const first = newEventId();
    const second = newEventId();
    await saveScenario(keyed(env.DB, owner.at(later), 'write'), row.token, input({ year: 2040 }), first);
    await saveScenario(keyed(env.DB, owner.at(later + 1), 'write'), row.token, input({ year: 2041 }), second, [2]);
    const events = await eventsOf(owner.accountId);
    expect(events).toHaveLength(3);
    expect(events.slice(1)).toEqual([
      { id: first, account_id: owner.accountId, type: 'scenario.saved', token: row.token, version: 2, created_at: later },
      { id: second, account_id: owner.accountId, type: 'scenario.saved', token: row.token, version: 3, created_at: later + 1 },
    ]);
  });

  it('saves when versions holds the current version', async () => {
    const row = await created(owner);
    const saved = await saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 2041 }), newEventId(), [row.version]);
    expect(saved.scenario.version).toBe(row.version + 1);
    expect((await rowOf(row.token))?.version).toBe(2);
  });

  it('accepts any of several versions', async () => {
    const row = await created(owner);
    const saved = await saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 2042 }), newEventId(), [7, 1, 9]);
    expect(saved.scenario.version).toBe(2);
  });

  it('is precondition_failed for a stale version, with the current ETag, and leaves the row as it was', async () => {
    const row = await created(owner);
    await saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 2043 }), newEventId());
    const current = await rowOf(row.token);
    const error = await expectApiError(saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 1999 }), newEventId(), [1]), 'precondition_failed');
    expect(error.headers).toEqual({ ETag: '"v2"' });
    expect(error.status).toBe(412);
    expect(await rowOf(row.token)).toEqual(current);
    expect((await eventsOf(owner.accountId)).map((e) => [e.type, e.version])).toEqual([
      ['scenario.created', 1],
      ['scenario.saved', 2],
    ]);
  });

  it('is precondition_failed for an empty list of versions (an If-Match naming none)', async () => {
    const row = await created(owner);
    const before = await snapshot();
    const error = await expectApiError(saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 1999 }), newEventId(), []), 'precondition_failed');
    expect(error.headers.ETag).toBe('"v1"');
    expect(await snapshot()).toEqual(before);
  });

  it('lets only one of two racing saves with the same version win; the other sees the winner’s ETag', async () => {
    const row = await created(owner);
    const outcomes = await Promise.allSettled([
      saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 2001 }), newEventId(), [1]),
      saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 2002 }), newEventId(), [1]),
    ]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o) => o.status === 'rejected');
    expect([won.length, lost.length]).toEqual([1, 1]);
    expect(lost[0]!.reason).toMatchObject({ code: 'precondition_failed', headers: { ETag: '"v2"' } });
    const stored = (await rowOf(row.token))!;
    expect(stored.version).toBe(2);
    expect(stored).toEqual(won[0]!.value.scenario);
    // Only the winner's event: the loser's was never recorded.
    const saves = (await eventsOf(owner.accountId)).filter((e) => e.type === 'scenario.saved');
    expect(saves.map((e) => [e.id, e.version])).toEqual([[stored.changeId, 2]]);
  });

  it('lets the last of two unconditional saves win', async () => {
    const row = await created(owner);
    await saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 2001 }), newEventId());
    await saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 2002 }), newEventId());
    const stored = (await rowOf(row.token))!;
    expect([stored.version, JSON.parse(stored.scenarioData).year]).toEqual([3, 2002]);
  });

  it("is not_found for another account's token, with or without versions, and changes nothing", async () => {
    const other = await newKey();
    const row = await created(other);
    const before = await snapshot();
    await expectApiError(saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 1999 }), newEventId()), 'not_found');
    await expectApiError(saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 1999 }), newEventId(), [1]), 'not_found');
    expect(await snapshot()).toEqual(before);
  });

  it('is not_found for an unknown token, and records no event', async () => {
    const before = await eventCount();
    await expectApiError(saveScenario(keyed(env.DB, owner.at(), 'write'), '123456789012345', input(), newEventId()), 'not_found');
    await expectApiError(saveScenario(keyed(env.DB, owner.at(), 'write'), '123456789012345', input(), newEventId(), [1]), 'not_found');
    expect(await eventCount()).toBe(before);
  });
});

describe('deleteScenario', () => {
  it('removes the scenario and its stored create replies, and records one deleted event (no version)', async () => {
    const kept = await created(owner);
    const replied = await createScenario(keyed(env.DB, owner.at(), 'write'), input(), newEventId(), { key: 'k-gone', requestHash: 'h-gone' });
    await createScenario(keyed(env.DB, owner.at(), 'write'), input(), newEventId(), { key: 'k-kept', requestHash: 'h-kept' });
    const keptReply = (await recordsOf(owner.accountId)).find((r) => r.key === 'k-kept')!;
    const now = Date.now();
    const eventId = newEventId();
    const eventsBefore = await eventsOf(owner.accountId);

    await deleteScenario(keyed(env.DB, owner.at(now), 'write'), replied.token, eventId);

    expect(await rowOf(replied.token)).toBeNull();
    expect((await recordsOf(owner.accountId)).map((r) => r.key)).toEqual(['k-kept']);
    expect((await tokensOf(owner.accountId)).sort()).toEqual([kept.token, keptReply.scenario_token].sort());
    expect(await eventsOf(owner.accountId)).toEqual([
      ...eventsBefore,
      { id: eventId, account_id: owner.accountId, type: 'scenario.deleted', token: replied.token, version: null, created_at: now },
    ]);
  });

  it('keeps the events of the scenario it deletes: created, saved, then deleted', async () => {
    const row = await created(owner);
    await saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 2039 }), newEventId());
    await deleteScenario(keyed(env.DB, owner.at(), 'write'), row.token, newEventId());
    expect((await eventsOf(owner.accountId)).map((e) => [e.type, e.token, e.version])).toEqual([
      ['scenario.created', row.token, 1],
      ['scenario.saved', row.token, 2],
      ['scenario.deleted', row.token, null],
    ]);
  });

  it('leaves the other scenarios of the account', async () => {
    const ids = await createdIds(owner, 3);
    const middle = (await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 10 })).rows.find((r) => r.id === ids[1])!;
    await deleteScenario(keyed(env.DB, owner.at(), 'write'), middle.token, newEventId());
    expect(idsOf((await listScenarios(keyed(env.DB, owner.at(), 'read'), { limit: 10 })).rows)).toEqual([ids[2], ids[0]]);
  });

  it("is not_found for another account's token, which keeps its row and replies, with no event", async () => {
    const other = await newKey();
    const theirs = await createScenario(keyed(env.DB, other.at(), 'write'), input(), newEventId(), { key: 'theirs', requestHash: 'h' });
    const before = await snapshot();
    await expectApiError(deleteScenario(keyed(env.DB, owner.at(), 'write'), theirs.token, newEventId()), 'not_found');
    expect(await snapshot()).toEqual(before);
    expect(await eventsOf(owner.accountId)).toEqual([]);
  });

  it('is not_found for an unknown token, and records no event', async () => {
    const before = await snapshot();
    await expectApiError(deleteScenario(keyed(env.DB, owner.at(), 'write'), '123456789012345', newEventId()), 'not_found');
    expect(await snapshot()).toEqual(before);
  });

  it('is not_found for a second delete of the same token, which records no second event', async () => {
    const row = await created(owner);
    await deleteScenario(keyed(env.DB, owner.at(), 'write'), row.token, newEventId());
    const before = await snapshot();
    await expectApiError(deleteScenario(keyed(env.DB, owner.at(), 'write'), row.token, newEventId()), 'not_found');
    expect(await snapshot()).toEqual(before);
  });

  it("does not show an account another account's event, even under its id", async () => {
    const row = await created(owner);
    const eventId = newEventId();
    await deleteScenario(keyed(env.DB, owner.at(), 'write'), row.token, eventId);
    const other = await newKey();
    const before = await snapshot();
    await expectApiError(deleteScenario(keyed(env.DB, other.at(), 'write'), row.token, eventId), 'not_found');
    await expectApiError(saveScenario(keyed(env.DB, other.at(), 'write'), row.token, input(), eventId), 'not_found');
    expect(await snapshot()).toEqual(before);
    expect((await eventById(eventId))?.account_id).toBe(owner.accountId);
  });
});

describe('createScenario with an Idempotency-Key', () => {
  it('creates once: the same key and body again replays the first reply and token', async () => {
    const data = input({ year: 2033 });
    const first = await createScenario(keyed(env.DB, owner.at(), 'write'), data, newEventId(), { key: 'same', requestHash: 'body-1' });
    const again = await createScenario(keyed(env.DB, owner.at(), 'write'), data, newEventId(), { key: 'same', requestHash: 'body-1' });
    expect([first.replayed, again.replayed]).toEqual([false, true]);
    expect(again.token).toBe(first.token);
    expect(again.body).toEqual(first.body);
    expect(await tokensOf(owner.accountId)).toEqual([first.token]);
    expect(await recordsOf(owner.accountId)).toEqual([{ key: 'same', scenario_token: first.token, request_hash: 'body-1', created_at: expect.any(Number) }]);
  });

  it('records one created event for the create and none for its replay', async () => {
    const data = input({ year: 2034 });
    const firstId = newEventId();
    const now = Date.now();
    const first = await createScenario(keyed(env.DB, owner.at(now), 'write'), data, firstId, { key: 'evented', requestHash: 'body-1' });
    const before = await snapshot();
    const replayId = newEventId();
    const again = await createScenario(keyed(env.DB, owner.at(now), 'write'), data, replayId, { key: 'evented', requestHash: 'body-1' });
    expect([again.replayed, again.token]).toEqual([true, first.token]);
    expect(await snapshot()).toEqual(before);
    expect(await eventsOf(owner.accountId)).toEqual([
      { id: firstId, account_id: owner.accountId, type: 'scenario.created', token: first.token, version: 1, created_at: now },
    ]);
    expect(await eventById(replayId)).toBeNull();
  });

  it('is idempotency_conflict for the same key with another body, and writes nothing', async () => {
    await createScenario(keyed(env.DB, owner.at(), 'write'), input(), newEventId(), { key: 'k', requestHash: 'body-1' });
    const before = await snapshot();
    await expectApiError(createScenario(keyed(env.DB, owner.at(), 'write'), input({ year: 2030 }), newEventId(), { key: 'k', requestHash: 'body-2' }), 'idempotency_conflict');
    expect(await snapshot()).toEqual(before);
  });

  it('keeps keys per account: another account’s same key creates its own scenario', async () => {
    const other = await newKey();
    const mine = await createScenario(keyed(env.DB, owner.at(), 'write'), input(), newEventId(), { key: 'shared', requestHash: 'body-1' });
    const theirs = await createScenario(keyed(env.DB, other.at(), 'write'), input(), newEventId(), { key: 'shared', requestHash: 'body-1' });
    expect(theirs.replayed).toBe(false);
    expect(theirs.token).not.toBe(mine.token);
    expect(await tokensOf(other.accountId)).toEqual([theirs.token]);
    expect(await tokensOf(owner.accountId)).toEqual([mine.token]);
  });

  it('lets a record 24 hours old give way to a new create with the same key', async () => {
    const start = Date.now() - DAY;
    const first = await createScenario(keyed(env.DB, owner.at(start), 'write'), input(), newEventId(), { key: 'aged', requestHash: 'body-1' });
    const later = await createScenario(keyed(env.DB, owner.at(start + DAY), 'write'), input({ year: 2035 }), newEventId(), { key: 'aged', requestHash: 'body-2' });
    expect(later.replayed).toBe(false);
    expect(later.token).not.toBe(first.token);
    expect(await recordsOf(owner.accountId)).toEqual([{ key: 'aged', scenario_token: later.token, request_hash: 'body-2', created_at: start + DAY }]);
    // The first create's scenario is the client's and stays; only its stored reply has lapsed.
    expect(await tokensOf(owner.accountId)).toEqual([first.token, later.token]);
  });

  it('keeps a record younger than 24 hours: a replay, or a conflict for another body', async () => {
    const start = Date.now() - DAY;
    const first = await createScenario(keyed(env.DB, owner.at(start), 'write'), input(), newEventId(), { key: 'young', requestHash: 'body-1' });
    const replay = await createScenario(keyed(env.DB, owner.at(start + DAY - 1), 'write'), input(), newEventId(), { key: 'young', requestHash: 'body-1' });
    expect([replay.replayed, replay.token]).toEqual([true, first.token]);
    await expectApiError(createScenario(keyed(env.DB, owner.at(start + DAY - 1), 'write'), input(), newEventId(), { key: 'young', requestHash: 'body-2' }), 'idempotency_conflict');
    expect(await tokensOf(owner.accountId)).toEqual([first.token]);
  });

  it('creates afresh once the scenario it created was deleted (its stored reply went with it)', async () => {
    const first = await createScenario(keyed(env.DB, owner.at(), 'write'), input(), newEventId(), { key: 'again', requestHash: 'body-1' });
    await deleteScenario(keyed(env.DB, owner.at(), 'write'), first.token, newEventId());
    const second = await createScenario(keyed(env.DB, owner.at(), 'write'), input(), newEventId(), { key: 'again', requestHash: 'body-1' });
    expect(second.replayed).toBe(false);
    expect(await tokensOf(owner.accountId)).toEqual([second.token]);
    expect((await eventsOf(owner.accountId)).map((e) => [e.type, e.token])).toEqual([
      ['scenario.created', first.token],
      ['scenario.deleted', first.token],
      ['scenario.created', second.token],
    ]);
  });
});

describe('refused keys', () => {
  // Every call a key can make; the target scenario belongs to the key's own account, so only the
  // key check stands between the call and a write.
  const calls = (key: KeyCheck, token: string) => ({
    list: () => listScenarios(keyed(env.DB, key, 'read'), { limit: 10 }),
    view: () => viewScenario(keyed(env.DB, key, 'read'), token),
    create: () => createScenario(keyed(env.DB, key, 'write'), input(), newEventId()),
    'create with Idempotency-Key': () => createScenario(keyed(env.DB, key, 'write'), input(), newEventId(), { key: 'refused', requestHash: 'h' }),
    save: () => saveScenario(keyed(env.DB, key, 'write'), token, input({ year: 2050 }), newEventId()),
    'save with versions': () => saveScenario(keyed(env.DB, key, 'write'), token, input({ year: 2050 }), newEventId(), [1]),
    delete: () => deleteScenario(keyed(env.DB, key, 'write'), token, newEventId()),
  });

  const refusedKeys: [KeyRefusal, () => Promise<KeyCheck>][] = [
    [
      'revoked',
      async () => {
        const key = await newKey({ accountId: owner.accountId });
        await revokeApiKey(env.DB, key.keyId, Date.now());
        return key.at();
      },
    ],
    ['expired', async () => (await newKey({ accountId: owner.accountId, expiresAt: Date.now() - 1 })).at()],
    ['unknown', async () => ({ keyHash: await hashApiKey(generateApiKey()), now: Date.now(), address: ADDRESS })],
    [
      // A revoked key from a throttled address: a failing credential, refused as throttled (429).
      'throttled',
      async () => {
        const key = await newKey({ accountId: owner.accountId });
        await revokeApiKey(env.DB, key.keyId, Date.now());
        const address = '192.0.2.99';
        await throttleAddress(env.DB, address, Date.now() + 60_000);
        return { ...key.at(), address };
      },
    ],
  ];

  it.each(refusedKeys)('a %s key is refused for every call, and nothing is written', async (reason, makeKey) => {
    const { token } = await created(owner);
    const key = await makeKey();
    const before = await snapshot();
    for (const [name, call] of Object.entries(calls(key, token))) {
      await expectRefused(call(), reason).catch((error: unknown) => {
        throw new Error(`${name}: ${String(error)}`);
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  it("the owner's valid key from a throttled address keeps working: a lockout protects nothing", async () => {
    const { token } = await created(owner);
    const address = '192.0.2.98';
    await throttleAddress(env.DB, address, Date.now() + 60_000);
    const all = calls({ ...owner.at(), address }, token);
    expect((await all.view()).token).toBe(token);
    await all.save();
    expect(JSON.parse((await all.view()).scenarioData).year).toBe(2050);
  });

  it('a read-only key reads, and is refused as read_only for every write, writing nothing', async () => {
    const row = await created(owner);
    const reader = (await newKey({ accountId: owner.accountId, scope: 'read' })).at();
    const all = calls(reader, row.token);
    expect(idsOf((await all.list()).rows)).toEqual([row.id]);
    expect(await all.view()).toEqual(row);
    const before = await snapshot();
    for (const name of ['create', 'create with Idempotency-Key', 'save', 'save with versions', 'delete'] as const) {
      await expectRefused(all[name](), 'read_only').catch((error: unknown) => {
        throw new Error(`${name}: ${String(error)}`);
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('a key works until the millisecond it expires, and from then on writes nothing', async () => {
    const expiresAt = Date.now() + 60_000;
    const key = await newKey({ accountId: owner.accountId, expiresAt });
    const row = await created(owner);
    const saved = await saveScenario(keyed(env.DB, key.at(expiresAt - 1), 'write'), row.token, input({ year: 2044 }), newEventId());
    expect(saved.scenario.version).toBe(2);
    const before = await snapshot();
    await expectRefused(saveScenario(keyed(env.DB, key.at(expiresAt), 'write'), row.token, input({ year: 2045 }), newEventId()), 'expired');
    await expectRefused(createScenario(keyed(env.DB, key.at(expiresAt), 'write'), input(), newEventId()), 'expired');
    await expectRefused(deleteScenario(keyed(env.DB, key.at(expiresAt), 'write'), row.token, newEventId()), 'expired');
    expect(await snapshot()).toEqual(before);
  });

  it('a revoked key names its revocation even when it has also expired', async () => {
    const key = await newKey({ accountId: owner.accountId, expiresAt: Date.now() - 1 });
    await revokeApiKey(env.DB, key.keyId, Date.now());
    await expectRefused(listScenarios(keyed(env.DB, key.at(), 'read'), { limit: 1 }), 'revoked');
  });
});

describe('a call run again with the same event id, as a retry is', () => {
  /** An account's events, as [id, type, token, version]. */
  const typesOf = async (accountId: number) => (await eventsOf(accountId)).map((e) => [e.id, e.type, e.token, e.version]);

  it('create: a reply lost after the commit gives the created scenario, one row and one event', async () => {
    const eventId = newEventId();
    const d1 = faultyD1((n) => (n === 1 ? 'after' : undefined));
    const result = await createScenario(keyed(d1.db, owner.at(), 'write'), input(), eventId);
    expect(d1.injected.after).toBe(1);
    expect(result.replayed).toBe(false);
    expect(await tokensOf(owner.accountId)).toEqual([result.token]);
    expect((await rowOf(result.token))?.changeId).toBe(eventId);
    expect(await typesOf(owner.accountId)).toEqual([[eventId, 'scenario.created', result.token, 1]]);
  });

  it('create with an Idempotency-Key: the retry is the create itself, not a replay; one row, one record, one event', async () => {
    const eventId = newEventId();
    const d1 = faultyD1((n) => (n === 1 ? 'after' : undefined));
    const result = await createScenario(keyed(d1.db, owner.at(), 'write'), input(), eventId, { key: 'retried', requestHash: 'h' });
    expect(d1.injected.after).toBe(1);
    expect(result.replayed).toBe(false);
    expect(await tokensOf(owner.accountId)).toEqual([result.token]);
    expect((await recordsOf(owner.accountId)).map((r) => r.scenario_token)).toEqual([result.token]);
    expect(await typesOf(owner.accountId)).toEqual([[eventId, 'scenario.created', result.token, 1]]);
  });

  it.each([
    ['without', undefined],
    ['with', { key: 'twice', requestHash: 'h' }],
  ] as const)('create %s an Idempotency-Key, called twice with one event id: the second call writes nothing', async (_, idempotency) => {
    const eventId = newEventId();
    const first = await createScenario(keyed(env.DB, owner.at(), 'write'), input(), eventId, idempotency);
    const before = await snapshot();
    const second = await createScenario(keyed(env.DB, owner.at(), 'write'), input(), eventId, idempotency);
    expect(second.replayed).toBe(false);
    expect(second.token).toBe(first.token);
    expect(await snapshot()).toEqual(before);
    expect(await tokensOf(owner.accountId)).toEqual([first.token]);
    expect(await typesOf(owner.accountId)).toEqual([[eventId, 'scenario.created', first.token, 1]]);
  });

  it('save: called twice, the version moves once, both calls answer saved, one event', async () => {
    const row = await created(owner);
    const eventId = newEventId();
    const first = await saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 2046 }), eventId);
    const second = await saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 2046 }), eventId);
    expect([first.scenario.version, second.scenario.version]).toEqual([2, 2]);
    expect((await rowOf(row.token))?.version).toBe(2);
    expect((await typesOf(owner.accountId)).slice(1)).toEqual([[eventId, 'scenario.saved', row.token, 2]]);
  });

  it('save with versions: called again after its own commit it answers saved, not 412', async () => {
    const row = await created(owner);
    const eventId = newEventId();
    await saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 2047 }), eventId, [1]);
    const before = await snapshot();
    const again = await saveScenario(keyed(env.DB, owner.at(), 'write'), row.token, input({ year: 2047 }), eventId, [1]);
    expect(again.scenario.version).toBe(2);
    expect(await snapshot()).toEqual(before);
  });

  it('save: a reply lost after the commit gives saved, with the version moved once and one event', async () => {
    const row = await created(owner);
    const eventId = newEventId();
    const d1 = faultyD1((n) => (n === 1 ? 'after' : undefined));
    const saved = await saveScenario(keyed(d1.db, owner.at(), 'write'), row.token, input({ year: 2048 }), eventId, [1]);
    expect(d1.injected.after).toBe(1);
    expect(saved.scenario.version).toBe(2);
    expect((await rowOf(row.token))?.version).toBe(2);
    expect((await typesOf(owner.accountId)).slice(1)).toEqual([[eventId, 'scenario.saved', row.token, 2]]);
  });

  it('delete: called again with its event id it still succeeds and writes nothing; another delete is not_found', async () => {
    const row = await created(owner);
    const eventId = newEventId();
    await deleteScenario(keyed(env.DB, owner.at(), 'write'), row.token, eventId);
    const after = await snapshot();
    await expect(deleteScenario(keyed(env.DB, owner.at(), 'write'), row.token, eventId)).resolves.toBeUndefined();
    expect(await snapshot()).toEqual(after);
    await expectApiError(deleteScenario(keyed(env.DB, owner.at(), 'write'), row.token, newEventId()), 'not_found');
    expect(await snapshot()).toEqual(after);
  });

  it('delete: a reply lost after the commit gives success, not not_found, and one event', async () => {
    const row = await created(owner);
    const eventId = newEventId();
    const d1 = faultyD1((n) => (n === 1 ? 'after' : undefined));
    await deleteScenario(keyed(d1.db, owner.at(), 'write'), row.token, eventId);
    expect(d1.injected.after).toBe(1);
    expect(await rowOf(row.token)).toBeNull();
    expect((await typesOf(owner.accountId)).slice(1)).toEqual([[eventId, 'scenario.deleted', row.token, null]]);
  });
});

describe('states table', () => {
  it('holds exactly the rows of US_STATES (the 50 states and DC)', async () => {
    const { results } = await env.DB.prepare('select id, name, slug from states order by id').all();
    expect(US_STATES).toHaveLength(51);
    expect(results).toEqual([...US_STATES].sort((a, b) => a.id - b.id).map(({ id, name, slug }) => ({ id, name, slug })));
  });

  it('refuses a scenario whose state is not in the table', async () => {
    const values = { ...owner.at(), token: generateScenarioToken(), stateId: 3, scenarioData: '{}', eventId: newEventId(), maxScenarios: 10, database: 0, maxBytes: 10_000_000_000, writeBytes: 2 };
    await expect(runOne(env.DB, insertScenario(env.DB, values))).rejects.toThrow(/FOREIGN KEY/);
    expect(await tokensOf(owner.accountId)).toEqual([]);
  });
});

describe('the storage quota (ACCOUNT_MAX_SCENARIOS), checked in the create’s own batch', () => {
  const countOf = async (accountId: number) =>
    (await env.DB.prepare('select scenario_count as n from accounts where id = ?').bind(accountId).first<{ n: number }>())?.n;
  const create = (key: TestKey, max: number, idempotency?: { key: string; requestHash: string }) =>
    createScenario(keyed(env.DB, key.at(), 'write'), input(), newEventId(), idempotency, max);

  it('refuses a create past the quota with quota_exceeded, writing nothing; a delete makes room', async () => {
    await create(owner, 2);
    const second = await create(owner, 2);
    expect(await countOf(owner.accountId)).toBe(2);
    const before = await snapshot();
    const events = await eventCount();
    const error = await expectApiError(create(owner, 2), 'quota_exceeded');
    expect(error.message).toMatch(/holds 2 scenarios, its quota of 2/);
    expect(await snapshot()).toEqual(before);
    expect(await eventCount()).toBe(events);

    await deleteScenario(keyed(env.DB, owner.at(), 'write'), second.token, newEventId());
    expect(await countOf(owner.accountId)).toBe(1);
    await create(owner, 2);
    expect(await countOf(owner.accountId)).toBe(2);
  });

  it('with an Idempotency-Key: a replay of an earlier create still answers, a new key is refused and stores no reply', async () => {
    const first = await create(owner, 1, { key: 'quota-a', requestHash: 'h' });
    const replay = await create(owner, 1, { key: 'quota-a', requestHash: 'h' });
    expect(replay).toMatchObject({ token: first.token, replayed: true });
    await expectApiError(create(owner, 1, { key: 'quota-b', requestHash: 'h' }), 'quota_exceeded');
    expect((await recordsOf(owner.accountId)).map((r) => r.key)).toEqual(['quota-a']);
    expect(await countOf(owner.accountId)).toBe(1);
  });

  it('counts a create and a delete once when D1 loses the reply after the commit', async () => {
    const d1 = faultyD1((n) => (n === 1 ? 'after' : undefined));
    const made = await createScenario(keyed(d1.db, owner.at(), 'write'), input(), newEventId(), undefined, 5);
    expect(d1.injected.after).toBe(1);
    expect(await countOf(owner.accountId)).toBe(1);
    const lossy = faultyD1((n) => (n === 1 ? 'after' : undefined));
    await deleteScenario(keyed(lossy.db, owner.at(), 'write'), made.token, newEventId());
    expect(lossy.injected.after).toBe(1);
    expect(await countOf(owner.accountId)).toBe(0);
  });
});
