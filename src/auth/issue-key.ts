// Issuing a key: generate it, store only its hash and display prefix, hand the key back once.
// Used by the admin API and by `npm run keys`.
import { insertApiKey } from '../db/api-keys.ts';
import type { Db } from '../db/client.ts';
import type { ApiKey, KeyScope } from '../db/schema.ts';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.ts';

export async function issueApiKey(
  db: Db,
  accountId: number,
  options: { name: string | null; scope: KeyScope; expiresAt: number | null; now: number },
): Promise<{ key: string; row: ApiKey }> {
  const key = generateApiKey();
  const row = await insertApiKey(db, {
    accountId,
    keyHash: await hashApiKey(key),
    prefix: displayPrefix(key),
    ...options,
  });
  return { key, row };
}
