// The account and API-key queries, and the housekeeping of stored replies and events (each by its
// own cut-off), called directly against the local D1.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { hashApiKey, isWellFormedApiKey } from '../src/auth/api-key.ts';
import { issueApiKey } from '../src/auth/issue-key.ts';
import { findAccount, findAccountByEmail, insertAccount, listAccounts } from '../src/db/accounts.ts';
import { findKeyByHash, insertApiKey, listApiKeys, revokeApiKey, touchKeyLastUsed } from '../src/db/api-keys.ts';
import { prune } from '../src/db/scenarios.ts';
import { uniqueEmail } from './helpers/api.ts';

const db = () => env.DB;
const NOW = Date.UTC(2026, 10, 21, 8, 0, 0);
const MINUTE = 60_000;

let hashes = 0;
const fakeHash = () => (++hashes).toString(16).padStart(64, '0');

async function account(name = 'Db Test') {
  const row = await insertAccount(db(), { name, email: uniqueEmail(), now: NOW });
  if (!row) throw new Error('insertAccount returned null');
  return row;
}

async function key(accountId: number, overrides: Partial<Parameters<typeof insertApiKey>[1]> = {}) {
  const row = await insertApiKey(db(), { accountId, keyHash: fakeHash(), prefix: 'scn_abcdef', lastFour: 'abcd', name: null, scope: 'read_write', expiresAt: null, now: NOW, ...overrides });
  if (!row) throw new Error('insertApiKey returned null');
  return row;
}

const keyCount = async () => (await env.DB.prepare('SELECT count(*) AS n FROM api_keys').first<{ n: number }>())?.n;

const lastUsedAt = async (id: number) =>
  (await env.DB.prepare('SELECT last_used_at FROM api_keys WHERE id = ?').bind(id).first<{ last_used_at: number | null }>())?.last_used_at;

describe('accounts', () => {
  it('insertAccount returns the new row', async () => {
    const email = uniqueEmail();
    const row = await insertAccount(db(), { name: 'Acme', email, now: NOW });
    expect(row).toMatchObject({ name: 'Acme', email, createdAt: NOW });
    expect(await findAccount(db(), row!.id)).toEqual(row);
  });

  it('insertAccount with a taken e-mail address, in any letter case, returns null and writes nothing', async () => {
    const email = uniqueEmail();
    expect(await insertAccount(db(), { name: 'First', email, now: NOW })).not.toBeNull();
    const count = (await listAccounts(db())).length;
    expect(await insertAccount(db(), { name: 'Second', email, now: NOW })).toBeNull();
    expect(await insertAccount(db(), { name: 'Third', email: email.toUpperCase(), now: NOW })).toBeNull();
    expect((await listAccounts(db())).length).toBe(count);
  });

  it('findAccount of an unknown id is null', async () => {
    expect(await findAccount(db(), 987_654_321)).toBeNull();
  });

  it('findAccountByEmail finds the account in any letter case; an unknown address is null', async () => {
    const email = uniqueEmail();
    const row = await insertAccount(db(), { name: 'Cased', email, now: NOW });
    expect(await findAccountByEmail(db(), email)).toEqual(row);
    expect(await findAccountByEmail(db(), email.toUpperCase())).toEqual(row);
    expect(await findAccountByEmail(db(), `x${email}`)).toBeNull();
  });

  it('listAccounts lists every account, oldest first', async () => {
    const a = await account('List A');
    const b = await account('List B');
    const ids = (await listAccounts(db())).map((r) => r.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(ids.slice(-2)).toEqual([a.id, b.id]);
  });
});

describe('api keys', () => {
  it('findKeyByHash returns the key joined with its account', async () => {
    const owner = await account('Owner Ltd');
    const row = await key(owner.id, { scope: 'read', expiresAt: NOW + MINUTE });
    const found = await findKeyByHash(db(), row.keyHash);
    expect(found).toEqual({
      id: row.id,
      scope: 'read',
      expiresAt: NOW + MINUTE,
      revokedAt: null,
      lastUsedAt: null,
      accountId: owner.id,
      accountName: 'Owner Ltd',
      accountEmail: owner.email,
      accountApiVersion: '2026-11-21',
      writesPaused: false,
    });
  });

  it('findKeyByHash of an unknown hash is null', async () => {
    expect(await findKeyByHash(db(), 'f'.repeat(64))).toBeNull();
  });

  it('insertApiKey returns the stored row', async () => {
    const owner = await account();
    const keyHash = fakeHash();
    const row = await insertApiKey(db(), { accountId: owner.id, keyHash, prefix: 'scn_ABCDEF', lastFour: 'WXYZ', name: 'CI', scope: 'read', expiresAt: NOW + MINUTE, now: NOW });
    expect(row).toEqual({
      id: expect.any(Number),
      accountId: owner.id,
      keyHash,
      prefix: 'scn_ABCDEF',
      lastFour: 'WXYZ',
      name: 'CI',
      scope: 'read',
      createdAt: NOW,
      expiresAt: NOW + MINUTE,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(await listApiKeys(db(), owner.id)).toEqual([row]);
  });

  it('insertApiKey for an unknown account returns null and stores nothing', async () => {
    const before = await keyCount();
    const keyHash = fakeHash();
    expect(await insertApiKey(db(), { accountId: 987_654_321, keyHash, prefix: 'scn_abcdef', lastFour: 'abcd', name: null, scope: 'read_write', expiresAt: null, now: NOW })).toBeNull();
    expect(await keyCount()).toBe(before);
    expect(await findKeyByHash(db(), keyHash)).toBeNull();
  });

  it('issueApiKey hands back a well-formed key once and stores only its hash and prefix', async () => {
    const owner = await account();
    const issued = await issueApiKey(db(), owner.id, { name: 'Deploy', scope: 'read_write', expiresAt: null, now: NOW });
    expect(issued).not.toBeNull();
    expect(isWellFormedApiKey(issued!.key)).toBe(true);
    expect(issued!.row).toMatchObject({ accountId: owner.id, keyHash: await hashApiKey(issued!.key), prefix: issued!.key.slice(0, 10), name: 'Deploy' });
    const stored = await env.DB.prepare('SELECT * FROM api_keys WHERE id = ?').bind(issued!.row.id).first<Record<string, unknown>>();
    expect(Object.values(stored!)).not.toContain(issued!.key);
    expect((await findKeyByHash(db(), await hashApiKey(issued!.key)))?.accountId).toBe(owner.id);
  });

  it('issueApiKey for an unknown account is null', async () => {
    const before = await keyCount();
    expect(await issueApiKey(db(), 987_654_321, { name: null, scope: 'read', expiresAt: null, now: NOW })).toBeNull();
    expect(await keyCount()).toBe(before);
  });

  it('insertApiKey stores a hash once: again for its account it is the same key (a retry), for another account an error', async () => {
    const owner = await account();
    const row = await key(owner.id);
    const before = await keyCount();
    expect(await key(owner.id, { keyHash: row.keyHash })).toEqual(row);
    expect(await keyCount()).toBe(before);
    const other = await account();
    await expect(key(other.id, { keyHash: row.keyHash })).rejects.toThrow();
    expect(await keyCount()).toBe(before);
  });

  it('touchKeyLastUsed writes at most once per granularity', async () => {
    const owner = await account();
    const row = await key(owner.id);
    await touchKeyLastUsed(db(), row.id, NOW, MINUTE);
    expect(await lastUsedAt(row.id)).toBe(NOW);
    await touchKeyLastUsed(db(), row.id, NOW + 30_000, MINUTE);
    expect(await lastUsedAt(row.id)).toBe(NOW);
    await touchKeyLastUsed(db(), row.id, NOW + MINUTE, MINUTE);
    expect(await lastUsedAt(row.id)).toBe(NOW);
    await touchKeyLastUsed(db(), row.id, NOW + MINUTE + 1, MINUTE);
    expect(await lastUsedAt(row.id)).toBe(NOW + MINUTE + 1);
  });

  it('touchKeyLastUsed touches only the key it names', async () => {
    const owner = await account();
    const a = await key(owner.id);
    const b = await key(owner.id);
    await touchKeyLastUsed(db(), a.id, NOW, MINUTE);
    expect(await lastUsedAt(b.id)).toBeNull();
  });

  it('revokeApiKey sets revoked_at and keeps the first time when revoked again', async () => {
    const owner = await account();
    const row = await key(owner.id);
    const first = await revokeApiKey(db(), row.id, NOW + 1000);
    expect(first?.revokedAt).toBe(NOW + 1000);
    const second = await revokeApiKey(db(), row.id, NOW + 5000);
    expect(second?.revokedAt).toBe(NOW + 1000);
    expect((await findKeyByHash(db(), row.keyHash))?.revokedAt).toBe(NOW + 1000);
  });

  it('revokeApiKey of an unknown key is null', async () => {
    expect(await revokeApiKey(db(), 987_654_321, NOW)).toBeNull();
  });

  it("listApiKeys lists one account's keys, newest first", async () => {
    const owner = await account();
    const other = await account();
    const a = await key(owner.id);
    const b = await key(owner.id);
    await key(other.id);
    expect((await listApiKeys(db(), owner.id))?.map((k) => k.id)).toEqual([b.id, a.id]);
  });

  it('listApiKeys of an account without keys is empty; of an unknown account, null', async () => {
    const owner = await account();
    expect(await listApiKeys(db(), owner.id)).toEqual([]);
    expect(await listApiKeys(db(), 987_654_321)).toBeNull();
  });
});

describe('prune', () => {
  const insertRecord = (accountId: number, key: string, createdAt: number) =>
    env.DB.prepare(
      'INSERT INTO idempotency_records (account_id, key, request_hash, scenario_token, response_status, response_body, created_at) VALUES (?, ?, ?, ?, 201, ?, ?)',
    )
      .bind(accountId, key, 'h', '123456789012345', '{}', createdAt)
      .run();
  let events = 0;
  /** An event named by its token (unique here), recorded at `createdAt`. */
  const insertEvent = (accountId: number, token: string, createdAt: number) =>
    env.DB.prepare("INSERT INTO events (id, account_id, type, token, version, created_at) VALUES (?, ?, 'scenario.saved', ?, 2, ?)")
      .bind(`evt_${(++events).toString(16).padStart(32, '0')}`, accountId, token, createdAt)
      .run();
  const recordKeys = async (accountId: number) =>
    (await env.DB.prepare('SELECT key FROM idempotency_records WHERE account_id = ? ORDER BY key').bind(accountId).all<{ key: string }>()).results.map((r) => r.key);
  const eventTokens = async (accountId: number) =>
    (await env.DB.prepare('SELECT token FROM events WHERE account_id = ? ORDER BY token').bind(accountId).all<{ token: string }>()).results.map((r) => r.token);

  it('removes the stored replies and the events from before their own cut-offs, of every account, and keeps the rest', async () => {
    const [a, b] = [await account(), await account()];
    await insertRecord(a.id, 'old', NOW - 2 * MINUTE);
    await insertRecord(a.id, 'just-old', NOW - 1);
    await insertRecord(a.id, 'edge', NOW);
    await insertRecord(a.id, 'new', NOW + MINUTE);
    await insertRecord(b.id, 'old', NOW - MINUTE);
    await insertRecord(b.id, 'new', NOW + 1);
    // The events' cut-off lies an hour earlier than the replies': each table goes by its own.
    const EVENTS_BEFORE = NOW - 60 * MINUTE;
    await insertEvent(a.id, '100000000000001', EVENTS_BEFORE - 2 * MINUTE);
    await insertEvent(a.id, '100000000000002', EVENTS_BEFORE - 1);
    await insertEvent(a.id, '100000000000003', EVENTS_BEFORE);
    await insertEvent(a.id, '100000000000004', NOW - MINUTE);
    await insertEvent(b.id, '100000000000005', EVENTS_BEFORE - MINUTE);
    await insertEvent(b.id, '100000000000006', NOW - 2 * MINUTE);

    await prune(db(), { repliesBefore: NOW, eventsBefore: EVENTS_BEFORE, throttlesBefore: NOW });

    expect(await recordKeys(a.id)).toEqual(['edge', 'new']);
    expect(await recordKeys(b.id)).toEqual(['new']);
    // Older than the replies' cut-off, younger than the events': kept.
    expect(await eventTokens(a.id)).toEqual(['100000000000003', '100000000000004']);
    expect(await eventTokens(b.id)).toEqual(['100000000000006']);
  });

  it('keeps the events when only the replies are due, and the replies when only the events are', async () => {
    const owner = await account();
    await insertRecord(owner.id, 'reply', NOW - MINUTE);
    await insertEvent(owner.id, '100000000000007', NOW - MINUTE);
    await prune(db(), { repliesBefore: NOW, eventsBefore: NOW - 2 * MINUTE, throttlesBefore: NOW });
    expect([await recordKeys(owner.id), await eventTokens(owner.id)]).toEqual([[], ['100000000000007']]);
    await insertRecord(owner.id, 'reply', NOW - MINUTE);
    await prune(db(), { repliesBefore: NOW - 2 * MINUTE, eventsBefore: NOW, throttlesBefore: NOW });
    expect([await recordKeys(owner.id), await eventTokens(owner.id)]).toEqual([['reply'], []]);
  });

  it('is a no-op when nothing is older than the cut-offs, and when run again', async () => {
    const owner = await account();
    await insertRecord(owner.id, 'kept', NOW);
    await insertEvent(owner.id, '100000000000008', NOW);
    await prune(db(), { repliesBefore: NOW, eventsBefore: NOW, throttlesBefore: NOW });
    await prune(db(), { repliesBefore: NOW, eventsBefore: NOW, throttlesBefore: NOW });
    expect(await recordKeys(owner.id)).toEqual(['kept']);
    expect(await eventTokens(owner.id)).toEqual(['100000000000008']);
  });
});
