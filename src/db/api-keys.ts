// API keys, looked up by the SHA-256 of the presented key. Besides the admin queries, this module
// gives every other query the key check it carries: a request's statements name the account
// through the key (`accountOfKey`), so the check and the work it guards run in one round trip
// and a refused key can never let a write through. A throttled client address (db/auth-throttles.ts)
// refuses every key, the right one included.
import { sql, type SQL } from 'drizzle-orm/sql/sql';
import { addressThrottled, throttleOf } from './auth-throttles.ts';
import { runBatch, runOne } from './execute.ts';
import { accounts, apiKeys, type ApiKey, type KeyScope } from './schema.ts';
import { statement, type RawRow, type Session } from './statement.ts';

/** What a request presents: its key's hash, the time it is judged at (expiry), its client address. */
export interface KeyCheck {
  keyHash: string;
  now: number;
  address: string;
}

/** What a statement's key check demands: any live key (`read`) or a live read_write key. */
export type KeyAccess = 'read' | 'write';

/**
 * The WHERE condition on api_keys of a live key with that hash, presented from an address that is
 * not throttled (placeholders keyHash, now and address).
 */
export function liveKey(access: KeyAccess): SQL {
  const live = sql`${apiKeys.keyHash} = ${sql.placeholder('keyHash')} and ${apiKeys.revokedAt} is null and (${apiKeys.expiresAt} is null or ${apiKeys.expiresAt} > ${sql.placeholder('now')})
    and not ${addressThrottled()}`;
  return access === 'write' ? sql`${live} and ${apiKeys.scope} = 'read_write'` : live;
}

/** The account of a live key, as a scalar sub-select: NULL (matching no row) for a refused key. */
export function accountOfKey(access: KeyAccess): SQL {
  return sql`(select ${apiKeys.accountId} from ${apiKeys} where ${liveKey(access)})`;
}

/** A key with the account it belongs to; judged in code (auth/key-check.ts) to tell 401 from 403. */
export interface KeyWithAccount {
  id: number;
  scope: KeyScope;
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
  accountId: number;
  accountName: string;
  accountEmail: string;
}

/** Sent in the same batch as the work the key guards, so every answer comes from one round trip. */
export const keyWithAccount = statement<{ keyHash: string }>(
  () => sql`select ${apiKeys.id} as id, ${apiKeys.scope} as scope, ${apiKeys.expiresAt} as expires_at,
    ${apiKeys.revokedAt} as revoked_at, ${apiKeys.lastUsedAt} as last_used_at, ${accounts.id} as account_id,
    ${accounts.name} as account_name, ${accounts.email} as account_email
    from ${apiKeys} inner join ${accounts} on ${accounts.id} = ${apiKeys.accountId}
    where ${apiKeys.keyHash} = ${sql.placeholder('keyHash')}`,
);

/**
 * The head of every API-key request's batch: the address's throttle (a row while it lasts; a
 * statement of its own because an unknown key has no row to carry it) and the key's row.
 */
export function keyStatements(session: Session, key: KeyCheck): D1PreparedStatement[] {
  return [throttleOf(session, key), keyWithAccount(session, key)];
}

/** What the head of the batch says, for auth/key-check.ts to judge. */
export interface KeyState {
  throttled: boolean;
  key: KeyWithAccount | null;
}

export function toKeyState(throttleRows: RawRow[] | undefined, keyRows: RawRow[] | undefined): KeyState {
  return { throttled: (throttleRows?.length ?? 0) > 0, key: toKeyWithAccount(keyRows?.[0]) };
}

/** The key's state on its own (one round trip): GET /me, and a key refused before its work was sent. */
export async function findKeyState(session: Session, key: KeyCheck): Promise<KeyState> {
  const [throttle, row] = await runBatch(session, keyStatements(session, key));
  return toKeyState(throttle, row);
}

export function toKeyWithAccount(row: RawRow | undefined): KeyWithAccount | null {
  if (!row) return null;
  return {
    id: row.id as number,
    scope: row.scope as KeyScope,
    expiresAt: row.expires_at as number | null,
    revokedAt: row.revoked_at as number | null,
    lastUsedAt: row.last_used_at as number | null,
    accountId: row.account_id as number,
    accountName: row.account_name as string,
    accountEmail: row.account_email as string,
  };
}

export async function findKeyByHash(session: Session, keyHash: string): Promise<KeyWithAccount | null> {
  const [row] = await runOne(session, keyWithAccount(session, { keyHash }));
  return toKeyWithAccount(row);
}

export function toApiKey(row: RawRow): ApiKey {
  return {
    id: row.id as number,
    accountId: row.account_id as number,
    keyHash: row.key_hash as string,
    prefix: row.prefix as string,
    name: row.name as string | null,
    scope: row.scope as KeyScope,
    createdAt: row.created_at as number,
    expiresAt: row.expires_at as number | null,
    lastUsedAt: row.last_used_at as number | null,
    revokedAt: row.revoked_at as number | null,
  };
}

const touch = statement<{ keyId: number; now: number; staleBefore: number }>(
  () => sql`update ${apiKeys} set ${sql.identifier(apiKeys.lastUsedAt.name)} = ${sql.placeholder('now')}
    where ${apiKeys.id} = ${sql.placeholder('keyId')}
    and (${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} < ${sql.placeholder('staleBefore')})`,
);

/**
 * Records use of a key, at most once per `granularityMs`: the WHERE clause makes a fresh
 * timestamp a no-op, so concurrent requests do not all write.
 */
export async function touchKeyLastUsed(session: Session, keyId: number, now: number, granularityMs: number): Promise<void> {
  await runOne(session, touch(session, { keyId, now, staleBefore: now - granularityMs }));
}

// The key is inserted only if the account exists: one round trip, and no orphan key.
const insertKey = statement<{
  accountId: number;
  keyHash: string;
  prefix: string;
  name: string | null;
  scope: KeyScope;
  expiresAt: number | null;
  now: number;
}>(
  () => sql`insert into ${apiKeys} (account_id, key_hash, prefix, name, scope, expires_at, created_at)
    select ${accounts.id}, ${sql.placeholder('keyHash')}, ${sql.placeholder('prefix')}, ${sql.placeholder('name')},
      ${sql.placeholder('scope')}, ${sql.placeholder('expiresAt')}, ${sql.placeholder('now')}
    from ${accounts} where ${accounts.id} = ${sql.placeholder('accountId')}
    returning *`,
);

/** Stores a key of an account; `null` when there is no such account. */
export async function insertApiKey(
  session: Session,
  input: { accountId: number; keyHash: string; prefix: string; name: string | null; scope: KeyScope; expiresAt: number | null; now: number },
): Promise<ApiKey | null> {
  const [row] = await runOne(session, insertKey(session, input));
  return row ? toApiKey(row) : null;
}

const accountExists = statement<{ accountId: number }>(() => sql`select 1 as found from ${accounts} where ${accounts.id} = ${sql.placeholder('accountId')}`);
const keysOfAccount = statement<{ accountId: number }>(
  () => sql`select * from ${apiKeys} where ${apiKeys.accountId} = ${sql.placeholder('accountId')} order by ${apiKeys.id} desc`,
);

/** The keys of an account, newest first; `null` when there is no such account. */
export async function listApiKeys(session: Session, accountId: number): Promise<ApiKey[] | null> {
  const [found, keys] = await runBatch(session, [accountExists(session, { accountId }), keysOfAccount(session, { accountId })]);
  if (!found?.length) return null;
  return (keys ?? []).map(toApiKey);
}

const revoke = statement<{ keyId: number; now: number }>(
  () => sql`update ${apiKeys} set ${sql.identifier(apiKeys.revokedAt.name)} = coalesce(${apiKeys.revokedAt}, ${sql.placeholder('now')})
    where ${apiKeys.id} = ${sql.placeholder('keyId')} returning *`,
);

/** Revokes a key; revoking twice keeps the first time. `null` for an unknown key. */
export async function revokeApiKey(session: Session, keyId: number, now: number): Promise<ApiKey | null> {
  const [row] = await runOne(session, revoke(session, { keyId, now }));
  return row ? toApiKey(row) : null;
}
