// The account directory (schema.ts `accountDirectory`), in the first database: which database
// holds the account of an e-mail address. Only look-ups that start from an e-mail address use it
// (an account's create, dashboard sign-in, the admin CLI's look-up by address); an API key, an
// account or key id and a chart URL name their database themselves.
import { sql } from 'drizzle-orm/sql/sql';
import { runBatch, runOne } from './execute.ts';
import { accountDirectory } from './schema.ts';
import { statement, type Session } from './statement.ts';

export interface DirectoryEntry {
  email: string;
  database: number;
  changeId: string | null;
}

const p = sql.placeholder;

const perDatabase = statement(
  () => sql`select ${accountDirectory.database} as database, count(*) as accounts from ${accountDirectory} group by ${accountDirectory.database}`,
);

/** Accounts per database (index → count), databases without any included as 0. */
export async function accountsPerDatabase(directory: Session, databases: number): Promise<number[]> {
  const counts: number[] = Array.from({ length: databases }, () => 0);
  for (const row of await runOne(directory, perDatabase(directory, {}))) {
    const database = row.database as number;
    if (database < databases) counts[database] = row.accounts as number;
  }
  return counts;
}

const claim = statement<{ email: string; database: number; changeId: string; now: number }>(
  () => sql`insert into ${accountDirectory} (email, database, change_id, created_at)
    values (${p('email')}, ${p('database')}, ${p('changeId')}, ${p('now')}) on conflict do nothing`,
);
const byEmail = statement<{ email: string }>(
  () => sql`select * from ${accountDirectory} where lower(${accountDirectory.email}) = lower(${p('email')})`,
);

function toEntry(row: Record<string, unknown> | undefined): DirectoryEntry | null {
  return row ? { email: row.email as string, database: row.database as number, changeId: row.change_id as string | null } : null;
}

/**
 * Claims `email` (in any letter case) for an account on `database`; the entry that holds the
 * address afterwards: this claim's (its `changeId`, also after a retry of a claim that committed)
 * or an earlier one's.
 */
export async function claimEmail(directory: Session, input: { email: string; database: number; changeId: string; now: number }): Promise<DirectoryEntry> {
  const rows = await runBatch(directory, { claim: claim(directory, input), entry: byEmail(directory, input) });
  const entry = toEntry(rows.entry[0]);
  if (!entry) throw new Error('claimEmail: the claimed address is not in the directory');
  return entry;
}

const takeOver = statement<{ email: string; from: string | null; changeId: string }>(
  () => sql`update ${accountDirectory} set change_id = ${p('changeId')}
    where lower(${accountDirectory.email}) = lower(${p('email')}) and ${accountDirectory.changeId} is ${p('from')}`,
);

/**
 * Hands a claim that never became an account (its create failed after claiming) to a new create,
 * unless someone else took it first; the entry afterwards. The database stays the one claimed, so
 * every create of one address meets the others in the same database, whose unique index decides.
 */
export async function takeOverClaim(directory: Session, input: { email: string; from: string | null; changeId: string }): Promise<DirectoryEntry | null> {
  const rows = await runBatch(directory, { takeOver: takeOver(directory, input), entry: byEmail(directory, input) });
  return toEntry(rows.entry[0]);
}

/** The database holding the account of `email` (any letter case), or `null` when none claimed it. */
export async function databaseOfEmail(directory: Session, email: string): Promise<number | null> {
  const [row] = await runOne(directory, byEmail(directory, { email }));
  return toEntry(row)?.database ?? null;
}
