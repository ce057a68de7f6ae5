// The isolate's one drizzle instance (src/db/client.ts) runs each query on the handle its caller
// names, even when requests interleave: a session must never serve another request's query.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { insertAccount } from '../src/db/accounts.ts';
import { orm, run } from '../src/db/client.ts';
import { findIdempotencyRecord } from '../src/db/idempotency.ts';
import { findScenario, insertScenario } from '../src/db/scenarios.ts';
import { accounts } from '../src/db/schema.ts';
import { uniqueEmail } from './helpers/api.ts';
import { observedD1 } from './helpers/observed-d1.ts';

describe('the shared drizzle instance', () => {
  it('sends each of many interleaved queries to its own caller’s handle', async () => {
    const account = (await insertAccount(env.DB, { name: 'Router', email: uniqueEmail(), now: Date.now() }))!;
    const now = Date.now();
    const row = await insertScenario(env.DB, {
      token: '314159265358979',
      accountId: account.id,
      stateId: 36,
      scenarioData: '{}',
      createdAt: now,
      updatedAt: now,
    });
    const seen: string[] = [];
    const handles = Array.from({ length: 8 }, (_, i) => observedD1(() => seen.push(`h${i}`)));
    // 8 "requests" × 6 queries each, all in flight at once: prepared ones (bound at once) and
    // built ones (bound later, when the query builder is awaited).
    const results = await Promise.all(
      handles.flatMap((h) =>
        Array.from({ length: 3 }, () => [findScenario(h, account.id, row.token), findIdempotencyRecord(h, account.id, 'none')]).flat(),
      ),
    );
    expect(results.filter((r) => r !== null && 'token' in r && r.id === row.id)).toHaveLength(24);
    expect(seen).toHaveLength(48);
    for (let i = 0; i < 8; i++) expect(seen.filter((n) => n === `h${i}`)).toHaveLength(6);
  });

  it('refuses a query that would bind only after an await, when run has let go of the handle', async () => {
    const late = run(env.DB, async () => {
      await Promise.resolve();
      return orm.select().from(accounts).all();
    });
    await expect(late).rejects.toMatchObject({ cause: { message: expect.stringMatching(/outside run/) } });
  });

  it('refuses a query that names no handle', async () => {
    // drizzle wraps the router's error in its own, naming the query.
    await expect(orm.select().from(accounts).all()).rejects.toMatchObject({ cause: { message: expect.stringMatching(/outside run/) } });
  });
});
