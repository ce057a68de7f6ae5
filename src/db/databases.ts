// Which D1 database holds a row, read from its id. Accounts are spread over several databases
// (docs/decisions.md, "Capacity past one database"); every account and key id says which one holds
// it, so an admin look-up or a chart URL (which names the account id) goes straight to it. Database d numbers its accounts and
// keys from d × 2^40 + 1: the first database's ids are the ones it always had, and 2^40 ids per
// database stay far below 2^53 (exact in JSON and JavaScript) for all 13 databases a key can name.
// No imports, so every layer (and the scripts) can use it.

export const ID_BLOCK = 2 ** 40;

/** Databases an API key can name (auth/api-key.ts KEY_DATABASES, which test/capacity.test.ts checks against this). */
export const MAX_DATABASES = 13;

/** The database (its index: 0 is `DB`) holding the account or key with this id. */
export function databaseOfId(id: number): number {
  return Math.floor(id / ID_BLOCK);
}

/** The id below the first one database `database` gives out. */
export function idBase(database: number): number {
  return database * ID_BLOCK;
}

/**
 * Runs `work` on every database, one after another (the crons of both Workers): each holds its own
 * accounts' rows, so a failure in one is thrown only once the others have run.
 */
export async function forEachDatabase(databases: readonly D1Database[], work: (db: D1Database, database: number) => Promise<unknown>): Promise<void> {
  const failures: unknown[] = [];
  for (const [database, db] of databases.entries()) await work(db, database).catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
}

/** A database's binding name (wrangler.toml): DB, then DB_2, DB_3, … */
export function databaseName(database: number): string {
  return database === 0 ? 'DB' : `DB_${database + 1}`;
}

/** The index of the database with that binding name, or null for a name that is none. */
export function databaseIndex(name: string): number | null {
  if (name === 'DB') return 0;
  const n = /^DB_([2-9]|1[0-3])$/.exec(name)?.[1];
  return n === undefined ? null : Number(n) - 1;
}
