// Creating an account when accounts are spread over several databases (docs/decisions.md,
// "Capacity past one database"): the address is claimed in the directory of the first database
// (so it is unique across all of them) for the database with the fewest accounts, and the account
// is made there. Two round trips, on the admin path only: the claim (which places it), the insert.
// No Hono here: the admin API, the CLI and `npm start` call it.
import { findAccountByEmail, insertAccount } from '../db/accounts.ts';
import { claimEmail, takeOverClaim } from '../db/directory.ts';
import { newChangeId } from '../db/receipts.ts';
import type { Account } from '../db/schema.ts';
import type { Session } from '../db/statement.ts';

/**
 * A new account on the least-loaded of `databases` (sessions or bindings, in wrangler.toml's
 * order: the first holds the directory); `null` when the e-mail address (in any case) is taken.
 * `apiVersion`: the API version it is pinned to (DEFAULT_API_VERSION).
 */
export async function createAccount(
  databases: Session[],
  input: { name: string; email: string; now: number; apiVersion?: string },
): Promise<(Account & { database: number }) | null> {
  const directory = databases[0]!;
  const changeId = newChangeId();
  let entry = await claimEmail(directory, { email: input.email, databases: databases.length, changeId, now: input.now });
  if (entry.changeId !== changeId) {
    // Someone else's address, unless that claim's create failed before making the account.
    const holder = databases[entry.database];
    if (!holder || (await findAccountByEmail(holder, input.email))) return null;
    const taken = await takeOverClaim(directory, { email: input.email, from: entry.changeId, changeId });
    if (!taken || taken.changeId !== changeId) return null;
    entry = taken;
  }
  const account = await insertAccount(databases[entry.database]!, { ...input, changeId, database: entry.database });
  return account && { ...account, database: entry.database };
}
