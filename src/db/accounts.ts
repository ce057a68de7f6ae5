// Accounts: the owners of keys and scenarios.
import { sql } from 'drizzle-orm/sql/sql';
import { newAccountId, notMovedAway } from './api-keys.ts';
import { idBase } from './databases.ts';
import { runBatch, runOne } from './execute.ts';
import { newChangeId } from './receipts.ts';
import { SPEC_API_VERSION } from '../api-versions.ts';
import { accounts, type Account } from './schema.ts';
import { statement, type Session } from './statement.ts';
import { rowReader } from './rows.ts';

const toAccount = rowReader(accounts);

type NewAccount = { name: string; email: string; now: number; changeId: string; base: number; apiVersion: string };

// The id says which database holds the account (api-keys.ts `newAccountId`).
const insert = statement<NewAccount>(
  () => sql`insert into ${accounts} (id, name, email, created_at, change_id, api_version)
    select ${newAccountId()}, ${sql.placeholder('name')}, ${sql.placeholder('email')}, ${sql.placeholder('now')}, ${sql.placeholder('changeId')}, ${sql.placeholder('apiVersion')}
    on conflict do nothing`,
);

const byChange = statement<{ changeId: string }>(() => sql`select * from ${accounts} where ${accounts.changeId} = ${sql.placeholder('changeId')}`);

/**
 * Creates an account; `null` when the e-mail address (in any case) is already taken. The account
 * is read back by the id this call drew, so a retry after D1 lost the reply of the committed
 * insert finds its own account (not the 409 its e-mail address would now get). `database`: the
 * index of the database `session` is on (default 0, the first), which the account's id names.
 * `apiVersion`: the API version it is pinned to (DEFAULT_API_VERSION; default the specification's).
 */
export async function insertAccount(
  session: Session,
  input: { name: string; email: string; now: number; changeId?: string; database?: number; apiVersion?: string },
): Promise<Account | null> {
  const values = {
    name: input.name,
    email: input.email,
    now: input.now,
    changeId: input.changeId ?? newChangeId(),
    base: idBase(input.database ?? 0),
    apiVersion: input.apiVersion ?? SPEC_API_VERSION,
  };
  const rows = await runBatch(session, { insert: insert(session, values), account: byChange(session, values) });
  const [row] = rows.account;
  return row ? toAccount(row) : null;
}

const byId = statement<{ id: number }>(() => sql`select * from ${accounts} where ${accounts.id} = ${sql.placeholder('id')} and ${notMovedAway(sql`${accounts.id}`)}`);

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

/**
 * Pins the account to API version `version`, remembering the one it leaves and when (a rollback
 * within 72 hours returns to it). `rollbackOf`: only if the account is still on that version (the
 * dashboard's rollback, which must not undo a change made since). `null` for an unknown account
 * (or one no longer on `rollbackOf`).
 */
const setVersion = statement<{ id: number; version: string; now: number; onlyFrom: string | null }>(
  () => sql`update ${accounts} set
      ${sql.identifier(accounts.previousApiVersion.name)} = case when ${accounts.apiVersion} = ${sql.placeholder('version')} then ${accounts.previousApiVersion} else ${accounts.apiVersion} end,
      ${sql.identifier(accounts.apiVersionChangedAt.name)} = case when ${accounts.apiVersion} = ${sql.placeholder('version')} then ${accounts.apiVersionChangedAt} else ${sql.placeholder('now')} end,
      ${sql.identifier(accounts.apiVersion.name)} = ${sql.placeholder('version')}
    where ${accounts.id} = ${sql.placeholder('id')} and ${notMovedAway(sql`${accounts.id}`)} and (${sql.placeholder('onlyFrom')} is null or ${accounts.apiVersion} = ${sql.placeholder('onlyFrom')})
    returning *`,
);

export async function setAccountApiVersion(session: Session, input: { id: number; version: string; now: number; onlyFrom?: string }): Promise<Account | null> {
  const [row] = await runOne(session, setVersion(session, { ...input, onlyFrom: input.onlyFrom ?? null }));
  return row ? toAccount(row) : null;
}
