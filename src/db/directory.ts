// The account directory (schema.ts `accountDirectory`), in the first database: which database
// holds the account of an e-mail address, and (with `database_sizes`, src/db/sizes.ts) where a new
// account goes: the database with the most room. Only look-ups that start from an e-mail address use it
// (an account's create, dashboard sign-in, the admin CLI's look-up by address); an API key, an
// account or key id and a chart URL name their database themselves.
import { sql } from 'drizzle-orm/sql/sql';
import { runBatch, runOne } from './execute.ts';
import { accountDirectory, databaseSizes } from './schema.ts';
import { rowReader } from './rows.ts';
import { statement, type RawRow, type Session } from './statement.ts';

/** An entry of the directory, as the schema types it (what a create and a sign-in read of it). */
export type DirectoryEntry = Pick<typeof accountDirectory.$inferSelect, 'email' | 'database' | 'changeId'>;

const p = sql.placeholder;

/** What a claim needs to place an account: the databases bound, and their limit (DATABASE_MAX_BYTES). */
export interface Placement {
  databases: number;
  maxBytes: number;
}

// The claim picks the database itself, so placing and claiming are one round trip: of databases
// 0 … databases − 1, those at most 80 % full by their recorded size (none recorded: empty), the one
// with the most room, counted in whole hundredths of the limit (100 MB of 10 GB), then the fewest
// accounts, then the first. The hundredths keep databases whose sizes differ by little (or are
// recorded a step apart) taking turns, as they did by count. No database under the bar: nothing
// is claimed. `where true`: SQLite's upsert needs it after an INSERT … SELECT.
const recorded = sql`coalesce(max(${databaseSizes.bytes}), 0)`;
const claim = statement<{ email: string; databases: number; changeId: string; now: number; bar: number; hundredth: number }>(
  () => sql`insert into ${accountDirectory} (email, database, change_id, created_at)
    select ${p('email')}, roomiest.n, ${p('changeId')}, ${p('now')} from (
      with recursive place(n) as (select 0 union all select n + 1 from place where n + 1 < ${p('databases')})
      select place.n as n from place
        left join ${databaseSizes} on ${databaseSizes.database} = place.n
        left join ${accountDirectory} on ${accountDirectory.database} = place.n
      group by place.n having ${recorded} <= ${p('bar')}
      order by cast(${recorded} / ${p('hundredth')} as integer), count(${accountDirectory.email}), place.n limit 1
    ) as roomiest where true
    on conflict do nothing`,
);
const byEmail = statement<{ email: string }>(
  () => sql`select * from ${accountDirectory} where lower(${accountDirectory.email}) = lower(${p('email')})`,
);

const readEntry = rowReader(accountDirectory, ['email', 'database', 'changeId']);

function toEntry(row: RawRow | undefined): DirectoryEntry | null {
  return row ? readEntry(row) : null;
}

/**
 * Claims `email` (in any letter case) for an account on the one of `databases` with the most room
 * (see `claim`); the entry that holds the address afterwards: this claim's (its `changeId`, also
 * after a retry of a claim that committed) or an earlier one's; null when no database is under
 * 80 % of `maxBytes` and nobody holds the address (nothing was written). One round trip.
 */
export async function claimEmail(directory: Session, input: Placement & { email: string; changeId: string; now: number }): Promise<DirectoryEntry | null> {
  const values = { ...input, bar: Math.floor(input.maxBytes * 0.8), hundredth: Math.max(1, Math.floor(input.maxBytes / 100)) };
  const rows = await runBatch(directory, { claim: claim(directory, values), entry: byEmail(directory, input) });
  return toEntry(rows.entry[0]);
}

const claimOn = statement<{ email: string; database: number; changeId: string; now: number }>(
  () => sql`insert into ${accountDirectory} (email, database, change_id, created_at)
    values (${p('email')}, ${p('database')}, ${p('changeId')}, ${p('now')})
    on conflict do nothing`,
);

/**
 * Names `database` for `email` unless an entry names one already (a member invited to an account
 * there: the e-mailed sign-in then finds them). One round trip; a retry changes nothing more.
 */
export async function claimEmailOn(directory: Session, input: { email: string; database: number; changeId: string; now: number }): Promise<void> {
  await runOne(directory, claimOn(directory, input));
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
