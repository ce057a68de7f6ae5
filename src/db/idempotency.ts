// Stored replies of creates made with an Idempotency-Key (scoped to the account, kept 24 hours).
import { and, eq, lt } from 'drizzle-orm';
import type { Db } from './client.ts';
import { idempotencyRecords, type IdempotencyRecord } from './schema.ts';

export type NewIdempotencyRecord = IdempotencyRecord;

export async function findIdempotencyRecord(db: Db, accountId: number, key: string): Promise<IdempotencyRecord | null> {
  const row = await db
    .select()
    .from(idempotencyRecords)
    .where(and(eq(idempotencyRecords.accountId, accountId), eq(idempotencyRecords.key, key)))
    .get();
  return row ?? null;
}

/** The insert as a batch item: it fails on the primary key if a concurrent create won the key. */
export function insertIdempotencyRecordQuery(db: Db, record: NewIdempotencyRecord) {
  return db.insert(idempotencyRecords).values(record);
}

/** Removes records created before `before`; returns how many went. */
export async function deleteIdempotencyRecordsBefore(db: Db, before: number): Promise<number> {
  const result = await db.delete(idempotencyRecords).where(lt(idempotencyRecords.createdAt, before)).run();
  return result.meta.changes;
}
