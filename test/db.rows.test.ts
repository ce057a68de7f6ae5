// Rows typed from the schema (src/db/rows.ts): a row D1 returns, read by the table's reader, is
// the schema's row type under its JS names; tested against rows D1 itself returns.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { rowReader } from '../src/db/rows.ts';
import { accounts, apiKeys } from '../src/db/schema.ts';

describe('rowReader', () => {
  it('reads a row of D1 under the schema’s names, every column, NULL as null', async () => {
    const email = `rows-${crypto.randomUUID()}@example.com`;
    await env.DB.prepare('INSERT INTO accounts (name, email, created_at) VALUES (?, ?, ?)').bind('Rows', email, 1234).run();
    const row = await env.DB.prepare('SELECT * FROM accounts WHERE email = ?').bind(email).first();
    const account = rowReader(accounts)(row!);
    expect(account).toEqual({ id: row!.id, name: 'Rows', email, createdAt: 1234, scenarioCount: 0, changeId: null, apiVersion: '2026-11-21', previousApiVersion: null, apiVersionChangedAt: null });
  });

  it('reads only the columns it is given, and a column the statement left out as null', () => {
    const read = rowReader(apiKeys, ['id', 'lastFour', 'name']);
    expect(read({ id: 7, name: 'ci', prefix: 'scn_abc' })).toEqual({ id: 7, lastFour: null, name: 'ci' });
  });
});
