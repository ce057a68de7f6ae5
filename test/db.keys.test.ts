// The account and API-key queries, called directly against the local D1.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { findAccount, insertAccount, listAccounts } from '../src/db/accounts.ts';
import { findKeyByHash, insertApiKey, listApiKeys, revokeApiKey, touchKeyLastUsed } from '../src/db/api-keys.ts';
import { deleteIdempotencyRecordsBefore } from '../src/db/idempotency.ts';
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
  return insertApiKey(db(), { accountId, keyHash: fakeHash(), prefix: 'scn_abcdef', name: null, scope: 'read_write', expiresAt: null, now: NOW, ...overrides });
}

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
    });
  });

  it('findKeyByHash of an unknown hash is null', async () => {
    expect(await findKeyByHash(db(), 'f'.repeat(64))).toBeNull();
  });

  it('insertApiKey refuses a hash that is already stored', async () => {
    const owner = await account();
    const row = await key(owner.id);
    await expect(key(owner.id, { keyHash: row.keyHash })).rejects.toThrow();
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
    expect((await listApiKeys(db(), owner.id)).map((k) => k.id)).toEqual([b.id, a.id]);
  });
});

describe('idempotency records', () => {
  it('deleteIdempotencyRecordsBefore removes only records created before the cut-off and counts them', async () => {
    const owner = await account();
    const insert = (k: string, createdAt: number) =>
      env.DB.prepare(
        'INSERT INTO idempotency_records (account_id, key, request_hash, scenario_token, response_status, response_body, created_at) VALUES (?, ?, ?, ?, 201, ?, ?)',
      )
        .bind(owner.id, k, 'h', '123456789012345', '{}', createdAt)
        .run();
    await insert('old', NOW - 2 * MINUTE);
    await insert('edge', NOW);
    await insert('new', NOW + MINUTE);
    expect(await deleteIdempotencyRecordsBefore(db(), NOW)).toBe(1);
    const { results } = await env.DB.prepare('SELECT key FROM idempotency_records WHERE account_id = ? ORDER BY key').bind(owner.id).all<{ key: string }>();
    expect(results.map((r) => r.key)).toEqual(['edge', 'new']);
  });
});
