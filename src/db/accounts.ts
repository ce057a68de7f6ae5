// Accounts: the owners of keys and scenarios.
import { sql } from 'drizzle-orm/sql/sql';
import { runOne } from './execute.ts';
import { accounts, type Account } from './schema.ts';
import { statement, type RawRow, type Session } from './statement.ts';

function toAccount(row: RawRow): Account {
  return { id: row.id as number, name: row.name as string, email: row.email as string, createdAt: row.created_at as number };
}

const insert = statement<{ name: string; email: string; now: number }>(
  () => sql`insert into ${accounts} (name, email, created_at)
    values (${sql.placeholder('name')}, ${sql.placeholder('email')}, ${sql.placeholder('now')})
    on conflict do nothing returning *`,
);

/** Creates an account; `null` when the e-mail address (in any case) is already taken. */
export async function insertAccount(session: Session, input: { name: string; email: string; now: number }): Promise<Account | null> {
  const [row] = await runOne(session, insert(session, input));
  return row ? toAccount(row) : null;
}

const byId = statement<{ id: number }>(() => sql`select * from ${accounts} where ${accounts.id} = ${sql.placeholder('id')}`);

export async function findAccount(session: Session, id: number): Promise<Account | null> {
  const [row] = await runOne(session, byId(session, { id }));
  return row ? toAccount(row) : null;
}

const all = statement(() => sql`select * from ${accounts} order by ${accounts.id}`);

export async function listAccounts(session: Session): Promise<Account[]> {
  return (await runOne(session, all(session, {}))).map(toAccount);
}

const byEmail = statement<{ email: string }>(() => sql`select * from ${accounts} where lower(${accounts.email}) = lower(${sql.placeholder('email')})`);

export async function findAccountByEmail(session: Session, email: string): Promise<Account | null> {
  const [row] = await runOne(session, byEmail(session, { email }));
  return row ? toAccount(row) : null;
}
