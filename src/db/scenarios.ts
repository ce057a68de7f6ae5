// Scenario queries. Every one takes the account id: no query can reach another account's rows.
import { and, asc, desc, eq, gt, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from './client.ts';
import { idempotencyRecords, scenarios, type Scenario } from './schema.ts';

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

/**
 * Keyset pagination, newest first, on the (account_id, id) index: each page costs the same
 * however many scenarios the account holds, and creates or deletes elsewhere never shift it.
 */
export async function listScenarios(db: Db, accountId: number, page: PageRequest): Promise<Page> {
  const backward = page.endingBefore !== undefined;
  const conditions: SQL[] = [eq(scenarios.accountId, accountId)];
  if (page.startingAfter !== undefined) conditions.push(lt(scenarios.id, page.startingAfter));
  if (page.endingBefore !== undefined) conditions.push(gt(scenarios.id, page.endingBefore));
  const rows = await db
    .select()
    .from(scenarios)
    .where(and(...conditions))
    .orderBy(backward ? asc(scenarios.id) : desc(scenarios.id))
    .limit(page.limit + 1)
    .all();
  const hasMore = rows.length > page.limit;
  if (hasMore) rows.pop();
  if (backward) rows.reverse();
  return { rows, hasMore };
}

export async function findScenario(db: Db, accountId: number, token: string): Promise<Scenario | null> {
  const row = await db
    .select()
    .from(scenarios)
    .where(and(eq(scenarios.token, token), eq(scenarios.accountId, accountId)))
    .get();
  return row ?? null;
}

/** The insert as a batch item, so a create can be written together with its idempotency record. */
export function insertScenarioQuery(db: Db, row: NewScenario) {
  return db.insert(scenarios).values(row).returning();
}

export async function insertScenario(db: Db, row: NewScenario): Promise<Scenario> {
  const [inserted] = await insertScenarioQuery(db, row);
  if (!inserted) throw new Error('insert returned no row');
  return inserted;
}

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
  const conditions: SQL[] = [eq(scenarios.token, token), eq(scenarios.accountId, accountId)];
  if (change.expectedVersions) conditions.push(inArray(scenarios.version, change.expectedVersions));
  const rows = await db
    .update(scenarios)
    .set({
      scenarioData: change.scenarioData,
      stateId: change.stateId,
      updatedAt: change.now,
      version: sql`${scenarios.version} + 1`,
    })
    .where(and(...conditions))
    .returning();
  return rows[0] ?? null;
}

/** Deletes a scenario and the stored create replies that hold its data, atomically. */
export async function deleteScenario(db: Db, accountId: number, token: string): Promise<boolean> {
  const statements: [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]] = [
    db
      .delete(scenarios)
      .where(and(eq(scenarios.token, token), eq(scenarios.accountId, accountId)))
      .returning({ id: scenarios.id }),
    db
      .delete(idempotencyRecords)
      .where(and(eq(idempotencyRecords.accountId, accountId), eq(idempotencyRecords.scenarioToken, token))),
  ];
  const [deleted] = await db.batch(statements);
  return Array.isArray(deleted) && deleted.length > 0;
}
