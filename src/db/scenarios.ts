// Scenario queries. Every one takes the account id: no query can reach another account's rows.
// The hot-path ones are prepared once per isolate (see client.ts), with placeholders for values.
import { and, asc, desc, eq, gt, lt, sql } from 'drizzle-orm';
import { orm, run, type Db } from './client.ts';
import { idempotencyRecords, scenarios, type IdempotencyRecord, type Scenario } from './schema.ts';

export type NewScenario = Omit<Scenario, 'id' | 'version'>;

export interface PageRequest {
  limit: number;
  /** Items older than this id (the next page, newest first). */
  startingAfter?: number | undefined;
  /** Items newer than this id (the previous page). */
  endingBefore?: number | undefined;
}

export interface Page {
  rows: Scenario[];
  /** More items exist further in the direction of travel. */
  hasMore: boolean;
}

const ofAccount = eq(scenarios.accountId, sql.placeholder('accountId'));
const byToken = and(eq(scenarios.token, sql.placeholder('token')), ofAccount);
const pageOf = (where: ReturnType<typeof and>, order: 'asc' | 'desc') =>
  orm
    .select()
    .from(scenarios)
    .where(where)
    .orderBy(order === 'asc' ? asc(scenarios.id) : desc(scenarios.id))
    .limit(sql.placeholder('limit'))
    .prepare();
const firstPage = pageOf(ofAccount, 'desc');
const pageAfter = pageOf(and(ofAccount, lt(scenarios.id, sql.placeholder('cursor'))), 'desc');
const pageBefore = pageOf(and(ofAccount, gt(scenarios.id, sql.placeholder('cursor'))), 'asc');

/**
 * Keyset pagination, newest first, on the (account_id, id) index: each page costs the same
 * however many scenarios the account holds, and creates or deletes elsewhere never shift it.
 */
export async function listScenarios(db: Db, accountId: number, page: PageRequest): Promise<Page> {
  const limit = page.limit + 1;
  const rows = await run(db, () =>
    page.endingBefore !== undefined
      ? pageBefore.all({ accountId, cursor: page.endingBefore, limit })
      : page.startingAfter !== undefined
        ? pageAfter.all({ accountId, cursor: page.startingAfter, limit })
        : firstPage.all({ accountId, limit }),
  );
  const hasMore = rows.length > page.limit;
  if (hasMore) rows.pop();
  if (page.endingBefore !== undefined) rows.reverse();
  return { rows, hasMore };
}

const findByToken = orm.select().from(scenarios).where(byToken).prepare();

export async function findScenario(db: Db, accountId: number, token: string): Promise<Scenario | null> {
  return (await run(db, () => findByToken.get({ token, accountId }))) ?? null;
}

const scenarioValues = {
  token: sql.placeholder('token'),
  accountId: sql.placeholder('accountId'),
  stateId: sql.placeholder('stateId'),
  scenarioData: sql.placeholder('scenarioData'),
  createdAt: sql.placeholder('createdAt'),
  updatedAt: sql.placeholder('updatedAt'),
};
const insertOne = orm.insert(scenarios).values(scenarioValues).returning().prepare();

export async function insertScenario(db: Db, row: NewScenario): Promise<Scenario> {
  const [inserted] = await run(db, () => insertOne.all(row));
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

/**
 * A create with an Idempotency-Key: the scenario and the stored reply commit together or not at
 * all (the record's primary key fails if a concurrent create won the key).
 */
export async function insertScenarioWithReply(db: Db, row: NewScenario, reply: IdempotencyRecord): Promise<void> {
  await run(db, () => orm.batch([orm.insert(scenarios).values(row), orm.insert(idempotencyRecords).values(reply)]));
}

const newData = {
  scenarioData: sql`${sql.placeholder('scenarioData')}`,
  stateId: sql`${sql.placeholder('stateId')}`,
  updatedAt: sql`${sql.placeholder('now')}`,
  version: sql`${scenarios.version} + 1`,
};
const update = orm.update(scenarios).set(newData).where(byToken).returning().prepare();
// If-Match: the versions arrive as one JSON array, so any number of ETags share one statement.
const updateIfVersion = orm
  .update(scenarios)
  .set(newData)
  .where(and(byToken, sql`${scenarios.version} in (select value from json_each(${sql.placeholder('versions')}))`))
  .returning()
  .prepare();

/**
 * Replaces a scenario's data. With `expectedVersions` (from If-Match), the version check is part
 * of the UPDATE, so of two racing saves with the same If-Match only one can win. `null`: no row
 * matched (unknown token, another account's token, or a stale version).
 */
export async function updateScenarioData(
  db: Db,
  accountId: number,
  token: string,
  change: { scenarioData: string; stateId: number; now: number; expectedVersions?: number[] | undefined },
): Promise<Scenario | null> {
  const values = { token, accountId, scenarioData: change.scenarioData, stateId: change.stateId, now: change.now };
  const rows = await run(db, () =>
    change.expectedVersions
      ? updateIfVersion.all({ ...values, versions: JSON.stringify(change.expectedVersions) })
      : update.all(values),
  );
  return rows[0] ?? null;
}

/** Deletes a scenario and the stored create replies that hold its data, atomically. */
export async function deleteScenario(db: Db, accountId: number, token: string): Promise<boolean> {
  const [deleted] = await run(db, () =>
    orm.batch([
      orm
        .delete(scenarios)
        .where(and(eq(scenarios.token, token), eq(scenarios.accountId, accountId)))
        .returning({ id: scenarios.id }),
      orm.delete(idempotencyRecords).where(and(eq(idempotencyRecords.accountId, accountId), eq(idempotencyRecords.scenarioToken, token))),
    ]),
  );
  return deleted.length > 0;
}
