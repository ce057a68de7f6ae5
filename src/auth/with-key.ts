// The one round trip of an API-key request: the client address's throttle and the key's row head
// the batch, then the statements the key guards (each names its account through the key, so they
// do nothing for a refused key). The key row names the refusal without asking D1 again.
import { keyStatements, toKeyState, type KeyAccess, type KeyCheck } from '../db/api-keys.ts';
import { runBatch } from '../db/execute.ts';
import type { RawRow, Session } from '../db/statement.ts';
import { judgeKey, type Caller } from './key-check.ts';

/** Runs `statements` after the address's throttle and the key's row, and judges the key; the statements' rows follow. */
export async function withKey(
  session: Session,
  key: KeyCheck,
  access: KeyAccess,
  statements: D1PreparedStatement[],
): Promise<{ caller: Caller; results: RawRow[][] }> {
  const [throttleRows, keyRows, ...results] = await runBatch(session, [...keyStatements(session, key), ...statements]);
  const caller = judgeKey(toKeyState(throttleRows, keyRows), access, key.now);
  return { caller, results: results as RawRow[][] };
}
