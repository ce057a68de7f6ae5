// Issuing a key: generate it, store only its hash and display prefix, hand the key back once.
// Used by the admin API and by `npm run keys`. `null` when there is no such account.
import { insertApiKey } from '../db/api-keys.ts';
import type { Session } from '../db/statement.ts';
import type { ApiKey, KeyScope } from '../db/schema.ts';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.ts';

export async function issueApiKey(
  session: Session,
  accountId: number,
  options: { name: string | null; scope: KeyScope; expiresAt: number | null; now: number },
): Promise<{ key: string; row: ApiKey } | null> {
  const key = generateApiKey();
  const row = await insertApiKey(session, {
    accountId,
    keyHash: await hashApiKey(key),
    prefix: displayPrefix(key),
    ...options,
  });
  return row ? { key, row } : null;
}
