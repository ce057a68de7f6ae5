// Every hot-path query is answered from an index: EXPLAIN QUERY PLAN of the exact SQL the query
// functions send must show no full table scan and no temporary sort. Request cost then does not
// grow with the number of scenarios an account holds.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/auth/api-key.ts';
import { insertAccount } from '../src/db/accounts.ts';
import { findKeyByHash, touchKeyLastUsed } from '../src/db/api-keys.ts';
import type { Db } from '../src/db/client.ts';
import { findIdempotencyRecord } from '../src/db/idempotency.ts';
import { deleteScenario, findScenario, listScenarios, updateScenarioData } from '../src/db/scenarios.ts';
import { observedD1, type BoundStatement } from './helpers/observed-d1.ts';

async function plansOf(run: (db: Db) => Promise<unknown>): Promise<string[]> {
  const sent: BoundStatement[] = [];
  await run(observedD1((statement) => sent.push(statement)));
  expect(sent.length).toBeGreaterThan(0);
  const plans: string[] = [];
  for (const { sql, params } of sent) {
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`).bind(...params).all<{ detail: string }>();
    plans.push(`${sql}\n  ${plan.results.map((r) => r.detail).join('\n  ')}`);
  }
  return plans;
}

function expectIndexed(plans: string[]): void {
  for (const plan of plans) {
    // "SCAN t" is a full table scan; "SCAN t USING (COVERING) INDEX" and "SEARCH" are not, nor is
    // "SCAN json_each VIRTUAL TABLE" (the If-Match versions the request itself sent).
    expect(plan).not.toMatch(/\bSCAN \w+(?! USING| VIRTUAL TABLE)(\s|$)/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  }
}

describe('query plans of the hot path', async () => {
  const db = env.DB;
  const account = (await insertAccount(db, { name: 'Plans', email: `plans-${Date.now()}@example.com`, now: Date.now() }))!;
  const token = '123456789012345';

  it('authenticates by key hash on its unique index', async () => {
    const hash = await hashApiKey('scn_example');
    expectIndexed(await plansOf((d) => findKeyByHash(d, hash)));
    expectIndexed(await plansOf((d) => touchKeyLastUsed(d, 1, Date.now(), 60_000)));
  });

  it('views, saves and deletes by token on its unique index', async () => {
    expectIndexed(await plansOf((d) => findScenario(d, account.id, token)));
    const change = { scenarioData: '{}', stateId: 36, now: 1 };
    expectIndexed(await plansOf((d) => updateScenarioData(d, account.id, token, change)));
    expectIndexed(await plansOf((d) => updateScenarioData(d, account.id, token, { ...change, expectedVersions: [1, 2] })));
    expectIndexed(await plansOf((d) => deleteScenario(d, account.id, token)));
  });

  it('lists every page kind on the (account_id, id) index', async () => {
    for (const page of [{ limit: 10 }, { limit: 10, startingAfter: 500 }, { limit: 10, endingBefore: 500 }]) {
      expectIndexed(await plansOf((d) => listScenarios(d, account.id, page)));
    }
  });

  it('finds an idempotency record by its primary key', async () => {
    expectIndexed(await plansOf((d) => findIdempotencyRecord(d, account.id, 'some-key')));
  });

  it('would catch a table scan (the check itself works)', async () => {
    const plan = await env.DB.prepare('EXPLAIN QUERY PLAN SELECT * FROM scenarios WHERE scenario_data = ?').bind('x').all<{ detail: string }>();
    expect(() => expectIndexed([plan.results.map((r) => r.detail).join('\n')])).toThrow();
  });
});
