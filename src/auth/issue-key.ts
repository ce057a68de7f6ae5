// Issuing a key: generate it, store only its hash and what is shown of it (prefix, last four),
// hand the key back once. Used by the admin API, `npm run keys` and the dashboard (which stores the
// same material through its own session-guarded statement, dashboard/src/db/statements.ts). A key names the
// database of its account (docs/decisions.md, "Capacity past one database").
import { insertApiKey } from '../db/api-keys.ts';
import { databaseOfId } from '../db/databases.ts';
import type { Session } from '../db/statement.ts';
import type { ApiKey, KeyScope } from '../db/schema.ts';
import { displayPrefix, generateApiKey, hashApiKey, lastFour } from './api-key.ts';

/** A new key and the columns stored for it. */
export interface MintedKey {
  key: string;
  keyHash: string;
  prefix: string;
  lastFour: string;
}

/** A new key of an account on database `database` (its index; 0 is DB). */
export async function mintApiKey(database: number): Promise<MintedKey> {
  const key = generateApiKey(database);
  return { key, keyHash: await hashApiKey(key), prefix: displayPrefix(key), lastFour: lastFour(key) };
}

/**
 * A key for an account; `null` when there is no such account. `session` is on the account's
 * database, `database` (its index): the one its id names unless the account was moved.
 */
export async function issueApiKey(
  session: Session,
  accountId: number,
  options: { name: string | null; scope: KeyScope; expiresAt: number | null; now: number; database?: number },
): Promise<{ key: string; row: ApiKey } | null> {
  const { database = databaseOfId(accountId), ...values } = options;
  const { key, ...stored } = await mintApiKey(database);
  const row = await insertApiKey(session, { accountId, ...stored, ...values });
  return row ? { key, row } : null;
}
