// API keys, looked up by the SHA-256 of the presented key.
import { and, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { orm, run, type Db } from './client.ts';
import { accounts, apiKeys, type ApiKey, type KeyScope } from './schema.ts';

// The auth middleware's only query: a key with the account it belongs to, in one round trip.
const keyWithAccount = orm
  .select({
    id: apiKeys.id,
    scope: apiKeys.scope,
    expiresAt: apiKeys.expiresAt,
    revokedAt: apiKeys.revokedAt,
    lastUsedAt: apiKeys.lastUsedAt,
    accountId: accounts.id,
    accountName: accounts.name,
    accountEmail: accounts.email,
  })
  .from(apiKeys)
  .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
  .where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
  .prepare();

export async function findKeyByHash(db: Db, keyHash: string) {
  return (await run(db, () => keyWithAccount.get({ keyHash }))) ?? null;
}

export type KeyWithAccount = NonNullable<Awaited<ReturnType<typeof findKeyByHash>>>;

const touch = orm
  .update(apiKeys)
  .set({ lastUsedAt: sql`${sql.placeholder('now')}` })
  .where(and(eq(apiKeys.id, sql.placeholder('keyId')), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql.placeholder('staleBefore')))))
  .prepare();

/**
 * Records use of a key, at most once per `granularityMs`: the WHERE clause makes a fresh
 * timestamp a no-op, so concurrent requests do not all write.
 */
export async function touchKeyLastUsed(db: Db, keyId: number, now: number, granularityMs: number): Promise<void> {
  await run(db, () => touch.run({ keyId, now, staleBefore: now - granularityMs }));
}

export async function insertApiKey(
  db: Db,
  input: {
    accountId: number;
    keyHash: string;
    prefix: string;
    name: string | null;
    scope: KeyScope;
    expiresAt: number | null;
    now: number;
  },
): Promise<ApiKey> {
  const rows = await run(db, () =>
    orm
      .insert(apiKeys)
      .values({
        accountId: input.accountId,
        keyHash: input.keyHash,
        prefix: input.prefix,
        name: input.name,
        scope: input.scope,
        expiresAt: input.expiresAt,
        createdAt: input.now,
      })
      .returning(),
  );
  const row = rows[0];
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function listApiKeys(db: Db, accountId: number): Promise<ApiKey[]> {
  return run(db, () => orm.select().from(apiKeys).where(eq(apiKeys.accountId, accountId)).orderBy(desc(apiKeys.id)).all());
}

/** Revokes a key; revoking twice keeps the first time. `null` for an unknown key. */
export async function revokeApiKey(db: Db, keyId: number, now: number): Promise<ApiKey | null> {
  const rows = await run(db, () =>
    orm
      .update(apiKeys)
      .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${now})` })
      .where(eq(apiKeys.id, keyId))
      .returning(),
  );
  return rows[0] ?? null;
}
