// API keys, looked up by the SHA-256 of the presented key. Besides the admin queries, this module
// holds the key rule every API-key request is judged by, written twice side by side: in SQL
// (`liveKey`), which every statement a key guards carries, so the check and the work it guards run
// in one round trip and a refused key can never let a write through; and in TypeScript
// (`keyRefusal`), which reads the key's row from the same batch to name the refusal (401, 403 or
// 429). test/auth.key-rule.test.ts enumerates the key states and checks that both agree.
import { sql, type SQL } from 'drizzle-orm/sql/sql';
import { throttleOf } from './auth-throttles.ts';
import { runBatch, runOne, type Batch, type BatchRows } from './execute.ts';
import { accountMoves, accounts, apiKeys, movedRefs, type ApiKey, type KeyScope } from './schema.ts';
import type { Room, SizeSeen } from './sizes.ts';
import { statement, type RawRow, type Session } from './statement.ts';
import { rowReader } from './rows.ts';

/** What a request presents: its key's hash, the time it is judged at (expiry), its client address. */
export interface KeyCheck {
  keyHash: string;
  now: number;
  address: string;
}

/** What a statement's key check demands: any live key (`read`) or a live read_write key. */
export type KeyAccess = 'read' | 'write';

/**
 * The account (an id column or expression) was not moved away from this database: its rows here
 * are a verified copy waiting for the move's clean-up, which nothing may read or change.
 */
export const notMovedAway = (accountId: SQL) =>
  sql`not exists (select 1 from ${accountMoves} where ${accountMoves.accountId} = ${accountId} and ${accountMoves.state} = 'moved')`;

/** True while the key's account is in the write pause of a move (db/schema.ts `accountMoves`). */
const writesPaused = () =>
  sql`exists (select 1 from ${accountMoves} where ${accountMoves.accountId} = ${apiKeys.accountId} and ${accountMoves.state} = 'paused')`;

/**
 * The key rule in SQL: the WHERE condition on api_keys of a live key with that hash (placeholders
 * keyHash and now). A throttled client address does not matter here: a valid key keeps working
 * from it (see `keyRefusal`). A write is refused while the account's move pauses writes (reads go on).
 */
export function liveKey(access: KeyAccess): SQL {
  const live = sql`${apiKeys.keyHash} = ${sql.placeholder('keyHash')} and ${apiKeys.revokedAt} is null and (${apiKeys.expiresAt} is null or ${apiKeys.expiresAt} > ${sql.placeholder('now')})`;
  return access === 'write' ? sql`${live} and ${apiKeys.scope} = 'read_write' and not ${writesPaused()}` : live;
}

/**
 * Why a key was refused. `throttled`: a failing key from an address over its failure limit;
 * `paused`: a write while the account is being moved (503, try again in a moment).
 */
export type KeyRefusal = 'throttled' | 'unknown' | 'revoked' | 'expired' | 'read_only' | 'paused';

/**
 * The key rule in TypeScript, read from the key's row: null when `liveKey(access)` admits the key,
 * else the reason. A valid key is accepted even from a throttled address: keys carry ~178 random
 * bits, so telling a valid key from an invalid one gives a guesser nothing, while refusing it would
 * let anyone lock out everyone behind a shared address (every Worker's subrequests reach Cloudflare
 * from one). A read-only key is a valid credential, so its 403 is not throttled either.
 */
export function keyRefusal({ throttled, key }: KeyState, access: KeyAccess, now: number): KeyRefusal | null {
  const failing = !key ? 'unknown' : key.revokedAt !== null ? 'revoked' : key.expiresAt !== null && key.expiresAt <= now ? 'expired' : null;
  if (failing) return throttled ? 'throttled' : failing;
  if (access === 'write' && key?.scope !== 'read_write') return 'read_only';
  if (access === 'write' && key?.writesPaused) return 'paused';
  return null;
}

/** The account of a live key, as a scalar sub-select: NULL (matching no row) for a refused key. */
export function accountOfKey(access: KeyAccess): SQL {
  return sql`(select ${apiKeys.accountId} from ${apiKeys} where ${liveKey(access)})`;
}

/** A key with the account it belongs to: the caller, once the key is accepted. */
export interface KeyWithAccount {
  id: number;
  scope: KeyScope;
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
  accountId: number;
  accountName: string;
  accountEmail: string;
  /** The API version the account is pinned to: what its requests without API-Version get. */
  accountApiVersion: string;
  /** The account is in the write pause of a move. */
  writesPaused: boolean;
}

/** Sent in the same batch as the work the key guards, so every answer comes from one round trip. */
export const keyWithAccount = statement<{ keyHash: string }>(
  () => sql`select ${apiKeys.id} as id, ${apiKeys.scope} as scope, ${apiKeys.expiresAt} as expires_at,
    ${apiKeys.revokedAt} as revoked_at, ${apiKeys.lastUsedAt} as last_used_at, ${accounts.id} as account_id,
    ${accounts.name} as account_name, ${accounts.email} as account_email, ${accounts.apiVersion} as account_api_version,
    ${writesPaused()} as writes_paused
    from ${apiKeys} inner join ${accounts} on ${accounts.id} = ${apiKeys.accountId}
    where ${apiKeys.keyHash} = ${sql.placeholder('keyHash')}`,
);

/**
 * The head's key statement: the key's row (`keyWithAccount`, `moved_to` null) or, for a key of an
 * account moved away from this database, a row of its forwarding alone (`id` null, `moved_to` the
 * database its account's forwarding names; db/schema.ts `movedRefs`). One statement rather than
 * two: each statement of a batch costs every request (bench/README.md, "Moving an account").
 */
export const keyOrForwarding = statement<{ keyHash: string }>(
  () => sql`select ${apiKeys.id} as id, ${apiKeys.scope} as scope, ${apiKeys.expiresAt} as expires_at,
    ${apiKeys.revokedAt} as revoked_at, ${apiKeys.lastUsedAt} as last_used_at, ${accounts.id} as account_id,
    ${accounts.name} as account_name, ${accounts.email} as account_email, ${accounts.apiVersion} as account_api_version,
    ${writesPaused()} as writes_paused, null as moved_to
    from ${apiKeys} inner join ${accounts} on ${accounts.id} = ${apiKeys.accountId}
    where ${apiKeys.keyHash} = ${sql.placeholder('keyHash')}
    union all
    select null, null, null, null, null, null, null, null, null, 0, ${accountMoves.database}
    from ${movedRefs} inner join ${accountMoves} on ${accountMoves.accountId} = ${movedRefs.accountId}
    where ${movedRefs.ref} = ${sql.placeholder('keyHash')} and ${accountMoves.state} in ('moved', 'paused')`,
);

/**
 * The head of every API-key request's batch, by name: the address's throttle, and the key's row
 * or (only for a key of an account moved away) where the key went.
 */
export const keyHead = { throttle: throttleOf, key: keyOrForwarding } as const;

/** What the head of the batch says, for `keyRefusal` to judge. */
export interface KeyState {
  throttled: boolean;
  key: KeyWithAccount | null;
}

export function toKeyState(throttleRows: RawRow[], keyRows: RawRow[]): KeyState {
  return { throttled: throttleRows.length > 0, key: toKeyWithAccount(keyRows.find((row) => row.id !== null)) };
}

/** The database a key's account was moved to, from the head's key rows: undefined when the key is here (or nowhere). */
export function movedToOf(keyRows: RawRow[]): number | undefined {
  if (keyRows.some((row) => row.id !== null)) return undefined;
  return keyRows.find((row) => row.moved_to !== null)?.moved_to as number | undefined;
}

/** A join (the key and its account, under names of its own): read by hand, as its own shape. */
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
    accountApiVersion: row.account_api_version as string,
    writesPaused: row.writes_paused === 1,
  };
}

export async function findKeyByHash(session: Session, keyHash: string): Promise<KeyWithAccount | null> {
  const [row] = await runOne(session, keyWithAccount(session, { keyHash }));
  return toKeyWithAccount(row);
}

export const toApiKey = rowReader(apiKeys);

const touch = statement<{ keyId: number; now: number; staleBefore: number }>(
  () => sql`update ${apiKeys} set ${sql.identifier(apiKeys.lastUsedAt.name)} = ${sql.placeholder('now')}
    where ${apiKeys.id} = ${sql.placeholder('keyId')}
    and (${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} < ${sql.placeholder('staleBefore')}) and not ${writesPaused()}`,
);

/**
 * Records use of a key, at most once per `granularityMs`: the WHERE clause makes a fresh
 * timestamp a no-op, so concurrent requests do not all write. Not while a move pauses the
 * account's writes (the copy being verified must not change under it).
 */
export async function touchKeyLastUsed(session: Session, keyId: number, now: number, granularityMs: number): Promise<void> {
  await runOne(session, touch(session, { keyId, now, staleBefore: now - granularityMs }));
}

/**
 * The id of a new key of the account `accountId` (an SQL expression): ids name their database
 * (databases.ts). The database is the account's block, unless the account was moved here (its
 * `arrived` row names this database). The next id of that block after every key it holds or held
 * (a moved-away account's key ids stay in `moved_refs`), so no id is ever given out twice.
 * 1099511627776 is ID_BLOCK (2^40), written into the SQL text as an integer literal, so the
 * division stays an integer division (test/capacity.test.ts holds the two equal).
 */
export function newKeyId(accountId: SQL): SQL {
  const base = sql`(coalesce((select ${accountMoves.database} from ${accountMoves} where ${accountMoves.accountId} = ${accountId} and ${accountMoves.state} = 'arrived'), ${accountId} / 1099511627776) * 1099511627776)`;
  const inBlock = (column: SQL) => sql`${column} > ${base} and ${column} <= ${base} + 1099511627776`;
  return sql`max(${base}, coalesce((select max(k.id) from ${apiKeys} as k where ${inBlock(sql`k.id`)}), 0),
    coalesce((select max(m.key_id) from ${movedRefs} as m where ${inBlock(sql`m.key_id`)}), 0)) + 1`;
}

/**
 * The id of a new account of the database whose block starts after the placeholder `base`
 * (databases.ts): the next of that block after every account this database holds or forwards (an
 * account moved in keeps its id from another block; one moved away leaves its `account_moves` row),
 * so no id is given out twice. For the first database that is what AUTOINCREMENT gave; explicit, as
 * a moved-in id would carry AUTOINCREMENT's counter into another block.
 */
export function newAccountId(): SQL {
  const base = sql.placeholder('base');
  const inBlock = (column: SQL) => sql`${column} > ${base} and ${column} <= ${base} + 1099511627776`;
  return sql`max(${base}, coalesce((select max(a.id) from ${accounts} as a where ${inBlock(sql`a.id`)}), 0),
    coalesce((select max(m.account_id) from ${accountMoves} as m where ${inBlock(sql`m.account_id`)}), 0)) + 1`;
}

/** The stored columns of a new key (src/auth/issue-key.ts mints them) and its settings. */
export interface NewKeyValues {
  keyHash: string;
  prefix: string;
  lastFour: string;
  name: string | null;
  scope: KeyScope;
  expiresAt: number | null;
  now: number;
}

/** How a key insert names its account: a FROM … WHERE yielding one row for an allowed caller, and its account column. */
export interface KeyOwner {
  from: SQL;
  accountId: SQL;
}

/**
 * The key insert for any way of naming the account (an account by id below; a live dashboard
 * session in dashboard/src/db/statements.ts): one SQL text for a key's columns. Its hash is drawn per request, so
 * run again after it committed (D1 lost the reply), it inserts nothing and the row read back by
 * the hash is the key the first try stored: no 500, no second key.
 */
export function insertKeyFrom<Owner extends object>(owner: () => KeyOwner) {
  return statement<NewKeyValues & Owner>(() => {
    const { from, accountId } = owner();
    return sql`insert into ${apiKeys} (id, account_id, key_hash, prefix, last_four, name, scope, expires_at, created_at)
    select ${newKeyId(accountId)}, ${accountId}, ${sql.placeholder('keyHash')}, ${sql.placeholder('prefix')}, ${sql.placeholder('lastFour')}, ${sql.placeholder('name')},
      ${sql.placeholder('scope')}, ${sql.placeholder('expiresAt')}, ${sql.placeholder('now')}
    ${from}
    on conflict do nothing`;
  });
}

// The key is inserted only if the account exists: one round trip, and no orphan key.
const insertKey = insertKeyFrom<{ accountId: number }>(() => ({
  from: sql`from ${accounts} where ${accounts.id} = ${sql.placeholder('accountId')} and ${notMovedAway(sql`${accounts.id}`)}`,
  accountId: sql`${accounts.id}`,
}));
export const keyByHash = statement<{ keyHash: string }>(() => sql`select * from ${apiKeys} where ${apiKeys.keyHash} = ${sql.placeholder('keyHash')}`);

/** Stores a key of an account; `null` when there is no such account. */
export async function insertApiKey(session: Session, input: NewKeyValues & { accountId: number }): Promise<ApiKey | null> {
  const rows = await runBatch(session, { insert: insertKey(session, input), key: keyByHash(session, input) });
  const [row] = rows.key;
  if (!row) return null;
  // The same hash is the same key: stored by this call or by its first try. Under another account
  // it can only be a caller's mistake (keys carry ~178 random bits), never a key to hand out.
  if (row.account_id !== input.accountId) throw new Error('insertApiKey: that key hash is stored for another account');
  return toApiKey(row);
}

const accountExists = statement<{ accountId: number }>(
  () => sql`select 1 as found from ${accounts} where ${accounts.id} = ${sql.placeholder('accountId')} and ${notMovedAway(sql`${accounts.id}`)}`,
);
const keysOfAccount = statement<{ accountId: number }>(
  () => sql`select * from ${apiKeys} where ${apiKeys.accountId} = ${sql.placeholder('accountId')} order by ${apiKeys.id} desc`,
);

/** The keys of an account, newest first; `null` when there is no such account. */
export async function listApiKeys(session: Session, accountId: number): Promise<ApiKey[] | null> {
  const rows = await runBatch(session, { account: accountExists(session, { accountId }), keys: keysOfAccount(session, { accountId }) });
  if (rows.account.length === 0) return null;
  return rows.keys.map(toApiKey);
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

/** What a roll binds: the key rolled, the new key's stored columns, when the old one stops. */
export interface RollValues {
  keyId: number;
  keyHash: string;
  prefix: string;
  lastFour: string;
  now: number;
  /** The old key's new expiry (it keeps an earlier one it already had). */
  graceUntil: number;
}

/**
 * Rolling a key, as statements of one batch: a new key with the old one's account, name and scope,
 * and no expiry (the old key's expiry may be the grace of an earlier roll, within the hour: a
 * replacement that inherited it would stop with the key it replaces), made only while the old one is live and `owned` (a condition on api_keys: any key for
 * the admin API, the session's account's for the dashboard); then the old one set to expire at
 * the grace's end, only if the new one exists. Retry-safe: the new key's hash is drawn once by the
 * request, so a retry after a lost reply inserts nothing more and finds the same new key.
 */
export function rollStatements<Extra extends object = object>(owned: () => SQL) {
  const old = () => sql`${apiKeys.id} = ${sql.placeholder('keyId')}`;
  return {
    insert: statement<RollValues & Extra>(
      () => sql`insert into ${apiKeys} (id, account_id, key_hash, prefix, last_four, name, scope, expires_at, created_at)
        select ${newKeyId(sql`${apiKeys.accountId}`)}, ${apiKeys.accountId}, ${sql.placeholder('keyHash')}, ${sql.placeholder('prefix')}, ${sql.placeholder('lastFour')}, ${apiKeys.name},
          ${apiKeys.scope}, null, ${sql.placeholder('now')}
        from ${apiKeys} where ${old()} and ${owned()} and ${apiKeys.revokedAt} is null
          and (${apiKeys.expiresAt} is null or ${apiKeys.expiresAt} > ${sql.placeholder('now')})
        on conflict do nothing`,
    ),
    expireOld: statement<RollValues & Extra>(
      () => sql`update ${apiKeys} set ${sql.identifier(apiKeys.expiresAt.name)} = min(coalesce(${apiKeys.expiresAt}, ${sql.placeholder('graceUntil')}), ${sql.placeholder('graceUntil')})
        where ${old()} and ${owned()} and exists (select 1 from ${apiKeys} as rolled where rolled.key_hash = ${sql.placeholder('keyHash')})`,
    ),
  };
}

const adminRoll = rollStatements(() => sql`1 = 1`);

/**
 * POST /admin/keys/{id}/roll and `npm run keys -- roll`: the new key, or `null` when the key is
 * unknown, revoked or expired (nothing changes then).
 */
export async function rollApiKey(session: Session, values: RollValues): Promise<ApiKey | null> {
  const rows = await runBatch(session, {
    insert: adminRoll.insert(session, values),
    expireOld: adminRoll.expireOld(session, values),
    rolled: keyByHash(session, values),
  });
  const [row] = rows.rolled;
  return row ? toApiKey(row) : null;
}

/** The caller once its key is accepted: the key and the account it belongs to. */
export type Caller = KeyWithAccount;

/** Names the head of a keyed batch takes; a workflow's statements may not use them. */
type Reserved = { '#throttle'?: never; '#key'?: never; '#size'?: never };

/**
 * What a workflow gets (built by src/auth/keyed.ts): the request's session and key, and the only
 * way to run statements under the key.
 */
export interface Keyed {
  readonly session: Session;
  /** The key, and the room its writes are guarded by (src/db/sizes.ts): what the statements bind. */
  readonly key: KeyCheck & Room;
  /** The accepted key and its account; null until a batch has judged the key. */
  readonly caller: Caller | null;
  /** A write's view of its database's size (recorded, and D1's after the batch); null before one ran. */
  readonly size: SizeSeen | null;
  /** Runs `statements` as one batch after the key's head; the caller and each statement's rows, by name. */
  run<B extends Batch & Reserved>(statements: B): Promise<{ caller: Caller; rows: BatchRows<B> }>;
}
