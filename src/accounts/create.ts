// Creating an account when accounts are spread over several databases (docs/decisions.md,
// "Capacity past one database", "Placement by room"): the address is claimed in the directory of
// the first database (so it is unique across all of them) for the database with the most room, and
// the account is made there; with every database past 80 % of its size, nothing is (507). Two
// round trips, on the admin path only: the claim (which places it), the insert.
// No Hono here: the admin API, the CLI and `npm start` call it.
import { findAccountByEmail, insertAccount } from '../db/accounts.ts';
import { claimEmail, takeOverClaim } from '../db/directory.ts';
import { newChangeId } from '../db/receipts.ts';
import type { Account } from '../db/schema.ts';
import type { Session } from '../db/statement.ts';
import { DEFAULT_CONFIG } from '../env.ts';
import { ApiError } from '../http/problem.ts';

/** Every database is past 80 % of DATABASE_MAX_BYTES: no new account can be placed (nothing written). */
export const NO_ROOM = 'Every database is past 80 % of its size, so no new account can be placed and nothing was written; add a database (README, "Capacity")';

/**
 * A new account on the one of `databases` with the most room (sessions or bindings, in
 * wrangler.toml's order: the first holds the directory); `null` when the e-mail address (in any
 * case) is taken; 507 insufficient_storage when every database is past 80 % of `maxBytes`
 * (DATABASE_MAX_BYTES). `apiVersion`: the API version it is pinned to (DEFAULT_API_VERSION).
 */
export async function createAccount(
  databases: Session[],
  input: { name: string; email: string; now: number; apiVersion?: string; maxBytes?: number },
): Promise<(Account & { database: number }) | null> {
  const directory = databases[0]!;
  const changeId = newChangeId();
  const maxBytes = input.maxBytes ?? DEFAULT_CONFIG.databaseMaxBytes;
  let entry = await claimEmail(directory, { email: input.email, databases: databases.length, maxBytes, changeId, now: input.now });
  if (!entry) throw new ApiError('insufficient_storage', NO_ROOM);
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
