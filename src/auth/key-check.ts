// Judging the key row that comes back with every request's batch: which refusal, if any. The
// statements themselves already refused to touch anything for such a key (db/api-keys.ts
// `liveKey`); this only names the reason, for the 401, 403 or 429.
import { findKeyState, type KeyAccess, type KeyCheck, type KeyState, type KeyWithAccount } from '../db/api-keys.ts';
import type { Session } from '../db/statement.ts';

/** `throttled`: the client address is refused after too many failures, whatever the key. */
export type KeyRefusal = 'throttled' | 'unknown' | 'revoked' | 'expired' | 'read_only';

/** A refused key. The app's error handler answers it (401 counted per address, 403, or 429). */
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

/**
 * The key's account, or KeyRefusedError. Same rules as `liveKey` in SQL. A throttled address is
 * refused first, so its answer says nothing about the key.
 */
export function judgeKey({ throttled, key }: KeyState, access: KeyAccess, now: number): Caller {
  if (throttled) throw new KeyRefusedError('throttled');
  if (!key) throw new KeyRefusedError('unknown');
  if (key.revokedAt !== null) throw new KeyRefusedError('revoked');
  if (key.expiresAt !== null && key.expiresAt <= now) throw new KeyRefusedError('expired');
  if (access === 'write' && key.scope !== 'read_write') throw new KeyRefusedError('read_only');
  return key;
}

/** Checks a key on its own (one round trip): for GET /me, and to refuse a key before judging input. */
export async function verifyKey(session: Session, key: KeyCheck, access: KeyAccess): Promise<Caller> {
  return judgeKey(await findKeyState(session, key), access, key.now);
}
