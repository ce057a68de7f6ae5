// The migrations to compact history (drizzle/0012 and 0013) on a database the code before them made:
// migrations applied up to 0011, scenarios created and saved with that code's statements (full
// copies of the data in scenario_revisions, pruned at 100), then 0012 and 0013 applied, and every
// revision read through the API (the Worker's fetch, with this database as its DB) against what
// was saved.
import { applyD1Migrations, createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { fc } from '@fast-check/vitest';
import { expect, it } from 'vitest';
import { mintApiKey } from '../src/auth/issue-key.ts';
import { stateIdOf, toStoredData } from '../src/scenarios/data.ts';
import { ScenarioDataInputSchema } from '../src/scenarios/schema.ts';
import { generateScenarioToken } from '../src/scenarios/token.ts';
import { BASE, scenarioData } from './helpers/api.ts';
import { ADULT_MONEY, validScenarioData } from './helpers/fuzz.ts';
import worker from './worker-entry.ts';

const db = env.HISTORY_MIGRATION_DB;
const BEFORE = (name: string) => name < '0012';

// The statements of the code before compact history (src/db/scenarios.ts and revisions.ts at
// 208191b), the key checks left out: they wrote the rows this test migrates.
const OLD = {
  create: `insert into scenarios (token, account_id, state_id, scenario_data, version, change_id, created_at, updated_at) values (?, ?, ?, ?, 1, ?, ?, ?)`,
  save: `update scenarios set scenario_data = ?, state_id = ?, updated_at = ?, version = scenarios.version + 1, change_id = ? where token = ?`,
  revision: `insert into scenario_revisions (scenario_id, version, state_id, scenario_data, created_at)
    select scenarios.id, scenarios.version, scenarios.state_id, scenarios.scenario_data, scenarios.updated_at from scenarios
    where scenarios.token = ? and scenarios.change_id = ? on conflict do nothing`,
  prune: `delete from scenario_revisions where scenario_id = (select id from scenarios where token = ?)
    and version <= (select version from scenarios where token = ?) - ?`,
};

let eventCounter = 0;
async function oldWrite(accountId: number, token: string, data: Record<string, unknown>, create: boolean, now: number): Promise<void> {
  const input = ScenarioDataInputSchema.parse(data);
  const text = JSON.stringify(toStoredData(input, token));
  const change = `evt_${(++eventCounter).toString(16).padStart(32, '0')}`;
  const write = create
    ? db.prepare(OLD.create).bind(token, accountId, stateIdOf(input), text, change, now, now)
    : db.prepare(OLD.save).bind(text, stateIdOf(input), now, change, token);
  await db.batch([write, db.prepare(OLD.revision).bind(token, change), db.prepare(OLD.prune).bind(token, token, 100)]);
}

async function get(key: string, path: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(BASE + path, { headers: { Authorization: `Bearer ${key}` } }) as Request<unknown, IncomingRequestCfProperties>, { ...env, DB: db }, ctx);
  const body = (await res.json()) as any;
  await waitOnExecutionContext(ctx);
  return { status: res.status, body };
}

it('converts the history stored before it: every revision reads back as saved', async () => {
  const migrations = env.TEST_MIGRATIONS;
  expect(migrations.some((m) => m.name.startsWith('0013_revision_patches_only'))).toBe(true);
  await applyD1Migrations(db, migrations.filter((m) => BEFORE(m.name)));
  expect((await db.prepare('select count(*) as n from pragma_table_info(?) where name = ?').bind('scenario_revisions', 'scenario_data').first<{ n: number }>())?.n).toBe(1);

  const now = Date.now();
  // As the code before these migrations made it (no api_version column yet: 0014 adds it later).
  const account = (await db.prepare('insert into accounts (name, email, created_at) values (?, ?, ?) returning id').bind('Before', 'before@example.com', now).first<{ id: number }>())!;
  // Its key, stored as that code stored one (today's statement numbers ids with tables it had not yet).
  const { key, keyHash, prefix } = await mintApiKey(0);
  await db.prepare('insert into api_keys (account_id, key_hash, prefix, scope, created_at) values (?, ?, ?, ?, ?)').bind(account.id, keyHash, prefix, 'read_write', now).run();
  // What each scenario's versions hold, in the detail form the API shows them.
  const expected = new Map<string, unknown[]>();
  const households = fc.sample(validScenarioData, { numRuns: 12, seed: 37 }).map((v) => v.data as Record<string, any>);
  const histories: Record<string, any>[][] = [
    [scenarioData()],
    households.slice(0, 6),
    // 104 versions of small edits: the four oldest were pruned by the old code.
    Array.from({ length: 104 }, (_, v) => {
      const data = structuredClone(households[6]!);
      data.adult[0][ADULT_MONEY[v % ADULT_MONEY.length]!] = `${v}.25`;
      return { ...data, year: 1990 + (v % 100) };
    }),
    [households[7]!, households[7]!, households[8]!],
  ];
  for (const history of histories) {
    const token = generateScenarioToken();
    const shown: unknown[] = [];
    for (const [v, data] of history.entries()) {
      await oldWrite(account.id, token, data, v === 0, now + v);
      // As 2026-11-21 (the account's pinned version) shows a revision: the token a number.
      shown.push({ ...toStoredData(ScenarioDataInputSchema.parse(data), token), token: Number(token) });
    }
    expected.set(token, shown);
  }

  await applyD1Migrations(db, migrations);
  expect((await db.prepare('select count(*) as n from pragma_table_info(?) where name = ?').bind('scenario_revisions', 'scenario_data').first<{ n: number }>())?.n).toBe(0);
  const stored = await db.prepare('select count(*) as n, count(patch) as patches from scenario_revisions').first<{ n: number; patches: number }>();
  expect(stored).toEqual({ n: 1 + 6 + 100 + 3, patches: 6 - 1 + 100 - 1 + 3 - 1 });

  for (const [token, shown] of expected) {
    const first = shown.length > 100 ? shown.length - 99 : 1;
    for (let v = first; v <= shown.length; v++) {
      const one = await get(key, `/scenarios/${token}/revisions/${v}`);
      expect(one.status, JSON.stringify(one.body)).toBe(200);
      expect(JSON.stringify(one.body.data.revision.scenario_data), `${token} v${v}`).toBe(JSON.stringify(shown[v - 1]));
    }
    expect((await get(key, `/scenarios/${token}/revisions/${first - 1}`)).status).toBe(404);
    const page = await get(key, `/scenarios/${token}/revisions?limit=100`);
    expect(page.body.data.map((r: any) => JSON.stringify(r.scenario_data))).toEqual(shown.slice(first - 1).map((d) => JSON.stringify(d)).reverse());
  }
});
