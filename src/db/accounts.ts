// Accounts: the owners of keys and scenarios.
import { eq, sql } from 'drizzle-orm';
import { orm, run, type Db } from './client.ts';
import { accounts, type Account } from './schema.ts';

/** Creates an account; `null` when the e-mail address (in any case) is already taken. */
export async function insertAccount(db: Db, input: { name: string; email: string; now: number }): Promise<Account | null> {
  const rows = await run(db, () =>
    orm.insert(accounts).values({ name: input.name, email: input.email, createdAt: input.now }).onConflictDoNothing().returning(),
  );
  return rows[0] ?? null;
}

export async function findAccount(db: Db, id: number): Promise<Account | null> {
  return (await run(db, () => orm.select().from(accounts).where(eq(accounts.id, id)).get())) ?? null;
}

export async function listAccounts(db: Db): Promise<Account[]> {
  return run(db, () => orm.select().from(accounts).orderBy(accounts.id).all());
}

export async function findAccountByEmail(db: Db, email: string): Promise<Account | null> {
  return (await run(db, () => orm.select().from(accounts).where(sql`lower(${accounts.email}) = lower(${email})`).get())) ?? null;
}
