// The scenario queries of src/db/scenarios.ts called directly against the local D1 (no Worker in
// between): keyset paging, scoping by account, versioned updates, deletes; and the states table.
import { env } from 'cloudflare:workers';
import { asc } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { beforeEach, describe, expect, it } from 'vitest';
import { insertAccount } from '../src/db/accounts.ts';
import type { Db } from '../src/db/client.ts';
import { findIdempotencyRecord } from '../src/db/idempotency.ts';
import { deleteScenario, findScenario, insertScenario, listScenarios, updateScenarioData } from '../src/db/scenarios.ts';
import { idempotencyRecords, states, type Scenario } from '../src/db/schema.ts';
import { US_STATES } from '../src/scenarios/states.ts';
import { generateScenarioToken } from '../src/scenarios/token.ts';
import { uniqueEmail } from './helpers/api.ts';
import { observedD1, type BoundStatement } from './helpers/observed-d1.ts';

let db: Db;
let accountId: number;

async function newAccount(): Promise<number> {
  const account = await insertAccount(db, { name: 'Query Test', email: uniqueEmail(), now: Date.now() });
  if (!account) throw new Error('account not inserted');
  return account.id;
}

async function insertRow(owner = accountId, data: object = { year: 2026 }): Promise<Scenario> {
  const now = Date.now();
  return insertScenario(db, { token: generateScenarioToken(), accountId: owner, stateId: 36, scenarioData: JSON.stringify(data), createdAt: now, updatedAt: now });
}

/** Inserts n rows for the account; returns their ids, oldest first. */
async function insertRows(n: number, owner = accountId): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) ids.push((await insertRow(owner)).id);
  return ids;
}

const idsOf = (rows: Scenario[]) => rows.map((r) => r.id);
const change = (data: object, extra: { expectedVersions?: number[]; stateId?: number } = {}) => ({
  scenarioData: JSON.stringify(data),
  stateId: extra.stateId ?? 36,
  now: Date.now(),
  expectedVersions: extra.expectedVersions,
});

beforeEach(async () => {
  db = env.DB;
  accountId = await newAccount();
});

describe('listScenarios', () => {
  it('lists newest first up to the limit, with hasMore', async () => {
    const ids = await insertRows(5);
    const page = await listScenarios(db, accountId, { limit: 3 });
    expect(idsOf(page.rows)).toEqual(ids.slice(2).reverse());
    expect(page.hasMore).toBe(true);
  });

  it('gives hasMore false when the limit equals what is left', async () => {
    const ids = await insertRows(3);
    const page = await listScenarios(db, accountId, { limit: 3 });
    expect(idsOf(page.rows)).toEqual([...ids].reverse());
    expect(page.hasMore).toBe(false);
  });

  it('gives the items older than startingAfter', async () => {
    const ids = await insertRows(6);
    const page = await listScenarios(db, accountId, { limit: 2, startingAfter: ids[4] });
    expect(idsOf(page.rows)).toEqual([ids[3], ids[2]]);
    expect(page.hasMore).toBe(true);
  });

  it('gives the items just newer than endingBefore, still newest first', async () => {
    const ids = await insertRows(6);
    const page = await listScenarios(db, accountId, { limit: 2, endingBefore: ids[1] });
    expect(idsOf(page.rows)).toEqual([ids[3], ids[2]]);
    expect(page.hasMore).toBe(true);
    const last = await listScenarios(db, accountId, { limit: 10, endingBefore: ids[3] });
    expect(idsOf(last.rows)).toEqual([ids[5], ids[4]]);
    expect(last.hasMore).toBe(false);
  });

  it('walks forward and backward over every row exactly once', async () => {
    const ids = await insertRows(17);
    const forward: number[] = [];
    let page = await listScenarios(db, accountId, { limit: 4 });
    forward.push(...idsOf(page.rows));
    while (page.hasMore) {
      page = await listScenarios(db, accountId, { limit: 4, startingAfter: forward.at(-1) });
      forward.push(...idsOf(page.rows));
    }
    expect(forward).toEqual([...ids].reverse());

    const backward: number[] = [ids[0]!];
    let cursor = ids[0];
    for (;;) {
      const back = await listScenarios(db, accountId, { limit: 4, endingBefore: cursor });
      backward.push(...idsOf(back.rows).reverse());
      if (!back.hasMore) break;
      cursor = back.rows[0]!.id;
    }
    expect(backward).toEqual(ids);
  });

  it("never returns another account's rows, whatever the cursor", async () => {
    const other = await newAccount();
    const mine: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < 4; i++) {
      mine.push((await insertRow()).id);
      theirs.push((await insertRow(other)).id);
    }
    expect(idsOf((await listScenarios(db, accountId, { limit: 100 })).rows)).toEqual([...mine].reverse());
    const fromTheirs = await listScenarios(db, accountId, { limit: 100, startingAfter: theirs[2] });
    expect(idsOf(fromTheirs.rows)).toEqual([mine[2], mine[1], mine[0]]);
    const before = await listScenarios(db, accountId, { limit: 100, endingBefore: theirs[1] });
    expect(idsOf(before.rows)).toEqual([mine[3], mine[2]]);
  });

  it('pages from the id of a deleted row', async () => {
    const ids = await insertRows(5);
    const gone = (await findRow(ids[2]!))!;
    expect(await deleteScenario(db, accountId, gone.token)).toBe(true);
    expect(idsOf((await listScenarios(db, accountId, { limit: 10, startingAfter: gone.id })).rows)).toEqual([ids[1], ids[0]]);
    expect(idsOf((await listScenarios(db, accountId, { limit: 10, endingBefore: gone.id })).rows)).toEqual([ids[4], ids[3]]);
  });

  it('answers an empty page for an account without rows', async () => {
    expect(await listScenarios(db, accountId, { limit: 10 })).toEqual({ rows: [], hasMore: false });
  });

  it('pages on the (account_id, id) index without sorting', async () => {
    const recorded: BoundStatement[] = [];
    // Observe the SQL listScenarios sends (the database behind it is the real one).
    const observed = observedD1((statement) => recorded.push(statement));
    await insertRows(3);
    for (const request of [{ limit: 2 }, { limit: 2, startingAfter: 1_000_000 }, { limit: 2, endingBefore: 1 }]) {
      recorded.length = 0;
      await listScenarios(observed, accountId, request);
      expect(recorded).toHaveLength(1);
      const { sql, params } = recorded[0]!;
      const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
      const details = plan.results.map((r) => r.detail).join('\n');
      expect(details, JSON.stringify(request)).toMatch(/scenarios_account_id_idx/);
      expect(details, JSON.stringify(request)).not.toMatch(/TEMP B-TREE/);
    }
  });
});

async function findRow(id: number): Promise<Scenario | undefined> {
  const rows = await listScenarios(db, accountId, { limit: 100 });
  return rows.rows.find((r) => r.id === id);
}

describe('findScenario', () => {
  it("finds the account's scenario by token", async () => {
    const row = await insertRow(accountId, { year: 2031 });
    const found = await findScenario(db, accountId, row.token);
    expect(found).toEqual(row);
    expect(JSON.parse(found!.scenarioData)).toEqual({ year: 2031 });
  });

  it("answers null for another account's token", async () => {
    const other = await newAccount();
    const row = await insertRow(other);
    expect(await findScenario(db, accountId, row.token)).toBeNull();
    expect(await findScenario(db, other, row.token)).not.toBeNull();
  });

  it('answers null for an unknown token', async () => {
    expect(await findScenario(db, accountId, '123456789012345')).toBeNull();
  });
});

describe('updateScenarioData', () => {
  it('replaces the data and state, bumps the version and updatedAt, keeps createdAt', async () => {
    const row = await insertRow();
    const later = row.updatedAt + 5000;
    const saved = await updateScenarioData(db, accountId, row.token, { scenarioData: '{"year":2040}', stateId: 6, now: later });
    expect(saved).toMatchObject({ id: row.id, token: row.token, scenarioData: '{"year":2040}', stateId: 6, version: 2, updatedAt: later, createdAt: row.createdAt });
    expect(await findScenario(db, accountId, row.token)).toEqual(saved);
  });

  it('updates when expectedVersions holds the current version', async () => {
    const row = await insertRow();
    const saved = await updateScenarioData(db, accountId, row.token, change({ year: 2041 }, { expectedVersions: [row.version] }));
    expect(saved?.version).toBe(row.version + 1);
  });

  it('accepts any of several expected versions', async () => {
    const row = await insertRow();
    expect(await updateScenarioData(db, accountId, row.token, change({ year: 2042 }, { expectedVersions: [7, 1, 9] }))).not.toBeNull();
  });

  it('answers null for a stale expected version and leaves the row unchanged', async () => {
    const row = await insertRow();
    await updateScenarioData(db, accountId, row.token, change({ year: 2043 }));
    const current = await findScenario(db, accountId, row.token);
    expect(await updateScenarioData(db, accountId, row.token, change({ year: 1999 }, { expectedVersions: [1] }))).toBeNull();
    expect(await findScenario(db, accountId, row.token)).toEqual(current);
  });

  it('answers null for an empty list of expected versions', async () => {
    const row = await insertRow();
    expect(await updateScenarioData(db, accountId, row.token, change({ year: 1999 }, { expectedVersions: [] }))).toBeNull();
    expect((await findScenario(db, accountId, row.token))?.version).toBe(1);
  });

  it('lets only one of two updates with the same expected version win', async () => {
    const row = await insertRow();
    const results = await Promise.all([
      updateScenarioData(db, accountId, row.token, change({ year: 2001 }, { expectedVersions: [1] })),
      updateScenarioData(db, accountId, row.token, change({ year: 2002 }, { expectedVersions: [1] })),
    ]);
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    const stored = await findScenario(db, accountId, row.token);
    expect(stored?.version).toBe(2);
    expect(stored?.scenarioData).toBe(winners[0]!.scenarioData);
  });

  it('lets the last of two unconditional updates win', async () => {
    const row = await insertRow();
    await updateScenarioData(db, accountId, row.token, change({ year: 2001 }));
    await updateScenarioData(db, accountId, row.token, change({ year: 2002 }));
    const stored = await findScenario(db, accountId, row.token);
    expect([stored?.version, stored?.scenarioData]).toEqual([3, '{"year":2002}']);
  });

  it("answers null for another account's token and leaves it unchanged", async () => {
    const other = await newAccount();
    const row = await insertRow(other);
    expect(await updateScenarioData(db, accountId, row.token, change({ year: 1999 }))).toBeNull();
    expect(await findScenario(db, other, row.token)).toEqual(row);
  });

  it('answers null for an unknown token', async () => {
    expect(await updateScenarioData(db, accountId, '123456789012345', change({ year: 1999 }))).toBeNull();
  });
});

describe('deleteScenario', () => {
  it('deletes the scenario and answers true, then false', async () => {
    const row = await insertRow();
    expect(await deleteScenario(db, accountId, row.token)).toBe(true);
    expect(await findScenario(db, accountId, row.token)).toBeNull();
    expect(await deleteScenario(db, accountId, row.token)).toBe(false);
  });

  it("answers false for another account's token and leaves it in place", async () => {
    const other = await newAccount();
    const row = await insertRow(other);
    expect(await deleteScenario(db, accountId, row.token)).toBe(false);
    expect(await findScenario(db, other, row.token)).toEqual(row);
  });

  it('removes the stored create replies of that scenario only', async () => {
    const [gone, kept] = [await insertRow(), await insertRow()];
    const record = (key: string, token: string) => ({ accountId, key, requestHash: 'h', scenarioToken: token, responseStatus: 201, responseBody: '{}', createdAt: Date.now() });
    await drizzle(env.DB).insert(idempotencyRecords).values([record('k-gone', gone.token), record('k-kept', kept.token)]);
    expect(await deleteScenario(db, accountId, gone.token)).toBe(true);
    expect(await findIdempotencyRecord(db, accountId, 'k-gone')).toBeNull();
    expect(await findIdempotencyRecord(db, accountId, 'k-kept')).not.toBeNull();
  });

  it('leaves the other scenarios of the account', async () => {
    const ids = await insertRows(3);
    const middle = (await findRow(ids[1]!))!;
    await deleteScenario(db, accountId, middle.token);
    expect(idsOf((await listScenarios(db, accountId, { limit: 10 })).rows)).toEqual([ids[2], ids[0]]);
  });
});

describe('states table', () => {
  it('holds exactly the rows of US_STATES', async () => {
    const rows = await drizzle(env.DB).select().from(states).orderBy(asc(states.id)).all();
    expect(rows).toEqual([...US_STATES].sort((a, b) => a.id - b.id).map(({ id, name, slug }) => ({ id, name, slug })));
  });

  it('holds the 50 states and DC', async () => {
    expect(US_STATES).toHaveLength(51);
    expect(await drizzle(env.DB).select().from(states).all()).toHaveLength(51);
  });

  it('refuses a scenario whose state is not in the table', async () => {
    const now = Date.now();
    await expect(
      insertScenario(db, { token: generateScenarioToken(), accountId, stateId: 3, scenarioData: '{}', createdAt: now, updatedAt: now }),
    ).rejects.toThrow();
  });
});
