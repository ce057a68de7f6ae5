// Stored replies of creates made with an Idempotency-Key (scoped to the account, kept 24 hours).
import { and, eq, lt } from 'drizzle-orm';
import { orm, run, type Db } from './client.ts';
import { idempotencyRecords, type IdempotencyRecord } from './schema.ts';

export async function findIdempotencyRecord(db: Db, accountId: number, key: string): Promise<IdempotencyRecord | null> {
  const row = await run(db, () =>
    orm
      .select()
      .from(idempotencyRecords)
      .where(and(eq(idempotencyRecords.accountId, accountId), eq(idempotencyRecords.key, key)))
      .get(),
  );
  return row ?? null;
}

/** Removes records created before `before`; returns how many went. */
export async function deleteIdempotencyRecordsBefore(db: Db, before: number): Promise<number> {
  const result = await run(db, () => orm.delete(idempotencyRecords).where(lt(idempotencyRecords.createdAt, before)).run());
  return result.meta.changes;
}
