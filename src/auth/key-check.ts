// Judging the key row that comes back with every request's batch: which refusal, if any. The
// statements themselves already refused to touch anything for such a key (db/api-keys.ts
// `liveKey`); this only names the reason, for the 401 or 403.
import { findKeyByHash, type KeyAccess, type KeyCheck, type KeyWithAccount } from '../db/api-keys.ts';
import type { Session } from '../db/statement.ts';

export type KeyRefusal = 'unknown' | 'revoked' | 'expired' | 'read_only';

/** A refused key. The app's error handler answers it (401, counted per address, or 403). */
export class KeyRefusedError extends Error {
  readonly reason: KeyRefusal;

  constructor(reason: KeyRefusal) {
    super(`API key refused: ${reason}`);
    this.reason = reason;
    this.name = 'KeyRefusedError';
  }
}

/** The caller once its key is accepted: the key and the account it belongs to. */
export type Caller = KeyWithAccount;

/** The key's account, or KeyRefusedError. Same rules as `liveKey` in SQL. */
export function judgeKey(key: KeyWithAccount | null, access: KeyAccess, now: number): Caller {
  if (!key) throw new KeyRefusedError('unknown');
  if (key.revokedAt !== null) throw new KeyRefusedError('revoked');
  if (key.expiresAt !== null && key.expiresAt <= now) throw new KeyRefusedError('expired');
  if (access === 'write' && key.scope !== 'read_write') throw new KeyRefusedError('read_only');
  return key;
}

/** Checks a key on its own (one round trip): for GET /me, and to refuse a key before judging input. */
export async function verifyKey(session: Session, key: KeyCheck, access: KeyAccess): Promise<Caller> {
  return judgeKey(await findKeyByHash(session, key.keyHash), access, key.now);
}
