// The databases' sizes, as D1 itself reports them (`meta.size_after` of every query: the
// database's bytes once it ran), kept in `database_sizes` (schema.ts) without a round trip of its
// own on any request: a keyed write's batch reads its database's recorded size (`ownSize`) and the
// guarded statements compare it with DATABASE_MAX_BYTES (`roomFor`); once the batch is back, a
// size that moved by a step or more from the recorded one is recorded after the reply
// (`waitUntil`, src/auth/bearer.ts), in the database itself and in the first one (placement,
// src/db/directory.ts). The hourly cron records every database's size as well, so writes that do
// not go through a key (accounts, the dashboard, deliveries, the prune) are caught within the hour.
import { sql, type SQL } from 'drizzle-orm/sql/sql';
import { runMeasuredBatch, runOne } from './execute.ts';
import { databaseSizes } from './schema.ts';
import { statement, type Session } from './statement.ts';

const p = sql.placeholder;

/** What a guarded write binds: its database (its index), the limit, and the bytes it adds. */
export interface Room {
  /** The database the request's session is on (0 is DB). */
  database: number;
  /** DATABASE_MAX_BYTES. */
  maxBytes: number;
}

/** The recorded size of the request's database (placeholder `database`); 0 while none is recorded. */
const recordedSizeSql: SQL = sql`coalesce((select ${databaseSizes.bytes} from ${databaseSizes} where ${databaseSizes.database} = ${p('database')}), 0)`;

/**
 * The write fits: the recorded size and the bytes it stores (placeholder `writeBytes`) stay within
 * `maxBytes`. A condition of the guarded statement, as the quota is, so a write refused for room
 * changes nothing, in the same round trip.
 */
export const roomFor: SQL = sql`${recordedSizeSql} + ${p('writeBytes')} <= ${p('maxBytes')}`;

/** The recorded size, read in a keyed write's batch (src/auth/keyed.ts): no row while none is recorded. */
export const ownSize = statement<{ database: number }>(
  () => sql`select ${databaseSizes.bytes} as bytes from ${databaseSizes} where ${databaseSizes.database} = ${p('database')}`,
);

/** A size recorded only once it moved by this much: a thousandth of the limit, at least 64 KiB (10 MB of 10 GB). */
export function sizeStep(maxBytes: number): number {
  return Math.max(64 * 1024, Math.floor(maxBytes / 1000));
}

/** What a batch saw of its database's size: the recorded one (null for none) and D1's after it ran. */
export interface SizeSeen {
  recorded: number | null;
  after: number | null;
}

/** Whether `seen` moved far enough from the recorded size to be recorded again: the size to record, or null. */
export function sizeToRecord(seen: SizeSeen | null, maxBytes: number): number | null {
  if (!seen || seen.after === null) return null;
  return Math.abs(seen.after - (seen.recorded ?? 0)) >= sizeStep(maxBytes) ? seen.after : null;
}

/** The write would take its database past the limit, by the recorded size (the guard's own rule). */
export function wouldOverfill(recorded: number | null, writeBytes: number, maxBytes: number): boolean {
  return (recorded ?? 0) + writeBytes > maxBytes;
}

const upsert = statement<{ database: number; bytes: number; now: number }>(
  () => sql`insert into ${databaseSizes} (database, bytes, recorded_at) values (${p('database')}, ${p('bytes')}, ${p('now')})
    on conflict (database) do update set bytes = excluded.bytes, recorded_at = excluded.recorded_at
    where excluded.recorded_at >= ${databaseSizes.recordedAt}`,
);

/**
 * Records `bytes` as database `database`'s size: in that database (its writes' guard) and in the
 * first (placement); one statement when they are the same. An older report never overwrites a
 * newer one. `databases`: the bindings, in wrangler.toml's order.
 */
export async function recordDatabaseSize(databases: readonly Session[], database: number, bytes: number, now: number): Promise<void> {
  const targets = database === 0 ? [databases[0]] : [databases[database], databases[0]];
  await Promise.all(targets.map((db) => db && runOne(db, upsert(db, { database, bytes, now }))));
}

const probe = statement(() => sql`select ${databaseSizes.database} from ${databaseSizes} where ${databaseSizes.database} = -1`);

/** The database's size now, from D1's reply to a query that reads nothing (the cron's). */
export async function measureDatabaseSize(db: Session): Promise<number | null> {
  return (await runMeasuredBatch(db, { probe: probe(db, {}) })).sizeAfter;
}
