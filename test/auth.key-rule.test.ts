// The key rule is written twice, side by side in src/db/api-keys.ts: in SQL (`liveKey`, carried by
// every statement a key guards) and in TypeScript (`keyRefusal`, which names the refusal from the
// key's row). This enumerates the key states and proves that they agree: the SQL admits a key
// exactly when the TypeScript names no refusal, and the reason named is the one the state calls for.
import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm/sql/sql';
import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../src/auth/api-key.ts';
import { issueApiKey } from '../src/auth/issue-key.ts';
import { keyed, KeyRefusedError } from '../src/auth/keyed.ts';
import { insertAccount } from '../src/db/accounts.ts';
import { accountOfKey, keyHead, keyRefusal, revokeApiKey, toKeyState, type KeyAccess, type KeyCheck, type KeyRefusal } from '../src/db/api-keys.ts';
import { throttleAddress } from '../src/db/auth-throttles.ts';
import { runBatch } from '../src/db/execute.ts';
import type { KeyScope } from '../src/db/schema.ts';
import { statement } from '../src/db/statement.ts';
import { uniqueEmail } from './helpers/api.ts';

const HOUR = 3_600_000;
const admitted = (access: KeyAccess) => statement<KeyCheck>(() => sql`select ${accountOfKey(access)} as account_id`);

type State = 'live' | 'revoked' | 'expired' | 'expires_now' | 'unknown';

/** A key in `state` with `scope`, presented from a throttled address or not. */
async function present(state: State, scope: KeyScope, throttled: boolean): Promise<{ check: KeyCheck; accountId: number }> {
  const now = Date.now();
  const account = (await insertAccount(env.DB, { name: 'Rule', email: uniqueEmail(), now }))!;
  const expiresAt = state === 'expired' ? now - HOUR : state === 'expires_now' ? now : state === 'live' ? now + HOUR : null;
  const issued = (await issueApiKey(env.DB, account.id, { name: null, scope, expiresAt, now }))!;
  if (state === 'revoked') await revokeApiKey(env.DB, issued.row.id, now);
  const address = `203.0.113.${Math.floor(Math.random() * 250) + 1}-${crypto.randomUUID()}`;
  if (throttled) await throttleAddress(env.DB, address, now + 60_000);
  const keyHash = await hashApiKey(state === 'unknown' ? generateApiKey() : issued.key);
  return { check: { keyHash, now, address }, accountId: account.id };
}

/** What each state must be answered with: a failing credential is 429 while throttled, a valid one never is. */
function expected(state: State, scope: KeyScope, access: KeyAccess, throttled: boolean): KeyRefusal | null {
  const failing = state === 'live' ? null : state === 'expires_now' ? 'expired' : state;
  if (failing) return throttled ? 'throttled' : failing;
  return access === 'write' && scope === 'read' ? 'read_only' : null;
}

const cases: [State, KeyScope, KeyAccess, boolean][] = [];
for (const state of ['live', 'revoked', 'expired', 'expires_now', 'unknown'] as const)
  for (const scope of ['read', 'read_write'] as const)
    for (const access of ['read', 'write'] as const) for (const throttled of [false, true]) cases.push([state, scope, access, throttled]);

describe('the key rule: SQL and TypeScript agree on every key state', () => {
  it.each(cases)('a %s %s key, %s access, throttled address: %s', async (state, scope, access, throttled) => {
    const { check, accountId } = await present(state, scope, throttled);
    const rows = await runBatch(env.DB, {
      throttle: keyHead.throttle(env.DB, check),
      key: keyHead.key(env.DB, check),
      admitted: admitted(access)(env.DB, check),
    });
    const refusal = keyRefusal(toKeyState(rows.throttle, rows.key), access, check.now);
    expect(refusal).toBe(expected(state, scope, access, throttled));
    expect(rows.admitted[0]?.account_id ?? null).toBe(refusal === null ? accountId : null);
  });
});

describe('the keyed path', () => {
  it('records the caller of an accepted key, with the rows of its statements by name', async () => {
    const { check, accountId } = await present('live', 'read', false);
    const path = keyed(env.DB, check, 'read');
    expect(path.caller).toBeNull();
    const { caller, rows } = await path.run({ mine: admitted('read')(env.DB, check) });
    expect(caller.accountId).toBe(accountId);
    expect(path.caller).toEqual(caller);
    expect(rows).toEqual({ mine: [{ account_id: accountId }] });
  });

  it('raises a KeyRefusedError naming its reason, as its problem, and records no caller', async () => {
    const { check } = await present('revoked', 'read_write', false);
    const path = keyed(env.DB, check, 'read');
    const refusal = await path.run({}).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(KeyRefusedError);
    expect(refusal).toMatchObject({ reason: 'revoked', code: 'unauthorized', status: 401, failing: true });
    expect(path.caller).toBeNull();
  });
});
