// Forwardings of moved accounts (schema.ts `accountMoves`, `movedRefs`; src/moves/), read where an
// id or a secret names the database an account left: the admin API's ids, a chart URL's account,
// a share link's or a dashboard session's secret. An API key's forwarding travels in its own
// batch, in the key's own statement (api-keys.ts `keyOrForwarding`).
import { sql } from 'drizzle-orm/sql/sql';
import { runOne } from './execute.ts';
import { accountMoves, movedRefs } from './schema.ts';
import { statement, type Session } from './statement.ts';

const p = sql.placeholder;

const accountForwarding = statement<{ accountId: number }>(
  () => sql`select ${accountMoves.database} as database from ${accountMoves}
    where ${accountMoves.accountId} = ${p('accountId')} and ${accountMoves.state} = 'moved'`,
);

const keyIdForwarding = statement<{ keyId: number }>(
  () => sql`select ${accountMoves.database} as database from ${movedRefs} join ${accountMoves} on ${accountMoves.accountId} = ${movedRefs.accountId}
    where ${movedRefs.keyId} = ${p('keyId')} and ${accountMoves.state} = 'moved'`,
);

/** A secret's forwarding: the SHA-256 of a share link's secret or a dashboard session's id. */
export const secretForwarding = statement<{ secretHash: string }>(
  () => sql`select ${accountMoves.database} as database from ${movedRefs} join ${accountMoves} on ${accountMoves.accountId} = ${movedRefs.accountId}
    where ${movedRefs.ref} = ${p('secretHash')} and ${accountMoves.state} in ('moved', 'paused')`,
);

/** Where the account moved from this database now is, or null when it did not move away. */
export async function accountMovedTo(session: Session, accountId: number): Promise<number | null> {
  const [row] = await runOne(session, accountForwarding(session, { accountId }));
  return row ? (row.database as number) : null;
}

/** Where the key with this id went with its account, or null when it did not move away. */
export async function keyMovedTo(session: Session, keyId: number): Promise<number | null> {
  const [row] = await runOne(session, keyIdForwarding(session, { keyId }));
  return row ? (row.database as number) : null;
}

/** Where the share link or dashboard session with this secret's hash went with its account, or null. */
export async function secretMovedTo(session: Session, secretHash: string): Promise<number | null> {
  const [row] = await runOne(session, secretForwarding(session, { secretHash }));
  return row ? (row.database as number) : null;
}
