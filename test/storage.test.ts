// Storage that lasts, part A (docs/decisions.md, "Placement by room"): each database's size as D1
// reports it (`size_after`), recorded after the writes that move it and by the hourly cron, with
// the request itself still one round trip; new accounts placed on the database with the most room
// and none on a database past 80 % of DATABASE_MAX_BYTES; a write that would take its database
// past the limit refused with 507 insufficient_storage and nothing changed, as is D1's own refusal
// of a full database.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { databaseOfId } from '../src/db/databases.ts';
import { readDatabases } from '../src/env.ts';
import worker from './worker-entry.ts';
import { ADMIN_TOKEN, BASE, api, createAccountWithKeyOn, createScenario, dbOf, scenarioData, uniqueEmail } from './helpers/api.ts';
import { wrapD1 } from './helpers/wrapped-d1.ts';

const databases = () => readDatabases(env);
const bindingName = (database: number) => (database === 0 ? 'DB' : `DB_${database + 1}`);

interface Sent {
  status: number;
  body: any;
  headers: Headers;
  /** D1 round trips of the request and of the work it left to waitUntil. */
  callsInAll: number;
}

/**
 * One request through the Worker as deployed, with `vars` over the test env and every database
 * counted (and, with `fail`, a batch refused as D1 refuses one on a full database).
 */
async function send(vars: Record<string, string>, method: string, path: string, init: { key?: string; body?: unknown; headers?: Record<string, string>; fail?: (sql: string[]) => Error | null } = {}): Promise<Sent> {
  let calls = 0;
  // The SQL of the statements bound since the last round trip: what the next batch sends.
  let bound: string[] = [];
  const bindings = Object.fromEntries(
    databases().map((db, i) => [
      bindingName(i),
      wrapD1(db, {
        bind: (sql) => {
          bound.push(sql);
        },
        statement: (run) => {
          calls += 1;
          bound = [];
          return run();
        },
        batch: (run) => {
          calls += 1;
          const error = init.fail?.(bound);
          bound = [];
          return error ? Promise.reject(error) : run();
        },
      }),
    ]),
  );
  const headers: Record<string, string> = { Authorization: `Bearer ${init.key ?? ADMIN_TOKEN}` };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  Object.assign(headers, init.headers);
  const ctx = createExecutionContext();
  const request = new Request(BASE + path, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, ...bindings, ...vars }, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers, callsInAll: calls };
}

/** What D1 says a database's size is now. */
async function sizeOf(db: D1Database): Promise<number> {
  return (await db.prepare('select 1').run()).meta.size_after;
}

/** The sizes the first database holds (placement's view), by database. */
async function recordedInDirectory(): Promise<Record<number, number>> {
  const { results } = await env.DB.prepare('select database, bytes from database_sizes order by database').all<{ database: number; bytes: number }>();
  return Object.fromEntries(results.map((row) => [row.database, row.bytes]));
}

async function recordSize(database: number, bytes: number): Promise<void> {
  for (const db of new Set([databases()[database]!, env.DB])) {
    await db.prepare('insert into database_sizes (database, bytes, recorded_at) values (?, ?, ?) on conflict (database) do update set bytes = excluded.bytes').bind(database, bytes, Date.now()).run();
  }
}

/** Everything an account's writes touch, to show a refused write changed nothing. */
async function snapshot(db: D1Database, accountId: number) {
  const count = async (sql: string) => (await db.prepare(sql).bind(accountId).first<{ n: number }>())!.n;
  return {
    scenarios: await count('select count(*) as n from scenarios where account_id = ?'),
    data: (await db.prepare('select token, version, scenario_data from scenarios where account_id = ? order by id').bind(accountId).all()).results,
    revisions: await count('select count(*) as n from scenario_revisions r join scenarios s on s.id = r.scenario_id where s.account_id = ?'),
    events: await count('select count(*) as n from events where account_id = ?'),
    held: await count('select scenario_count as n from accounts where id = ?'),
  };
}

beforeEach(async () => {
  for (const db of databases()) await db.prepare('delete from database_sizes').run();
});

describe("sizes, from D1's own replies", () => {
  it('a write that moves its database by a step is recorded after the reply, there and in the first database; the request is one round trip', async () => {
    const { account, key } = await createAccountWithKeyOn(2);
    // The key used once already, so no last_used_at write follows the requests below.
    await createScenario(key);
    // 100 MB: a step of 100 KB, which the first recording (from nothing) passes.
    const vars = { DATABASE_MAX_BYTES: '100000000' };
    const created = await send(vars, 'POST', '/scenarios', { key, body: { scenarioData: scenarioData() } });
    expect(created.status).toBe(201);
    // The request's one round trip, then (after the reply) the size recorded in the account's
    // database and in the first.
    expect(created.callsInAll).toBe(1 + 2);
    const home = dbOf(account.id);
    const now = await sizeOf(home);
    const own = await home.prepare('select bytes from database_sizes where database = 2').first<{ bytes: number }>();
    expect(own?.bytes).toBe(now);
    expect(await recordedInDirectory()).toEqual({ 2: now });

    // A write that moves it by less than the step records nothing.
    const again = await send(vars, 'POST', '/scenarios', { key, body: { scenarioData: scenarioData() } });
    expect(again).toMatchObject({ status: 201, callsInAll: 1 });
    expect(await recordedInDirectory()).toEqual({ 2: now });
  });

  it('reads record nothing and carry no size statement', async () => {
    const { key } = await createAccountWithKeyOn(1);
    const { token } = await createScenario(key);
    const read = await send({ DATABASE_MAX_BYTES: '100000000' }, 'GET', `/scenarios/${token}`, { key });
    expect(read).toMatchObject({ status: 200, callsInAll: 1 });
    expect(await recordedInDirectory()).toEqual({});
  });

  it('the hourly cron records every database’s size, in itself and in the first', async () => {
    await worker.scheduled(createScheduledController({ cron: '17 * * * *', scheduledTime: Date.now() }), env);
    const sizes = await Promise.all(databases().map(sizeOf));
    expect(await recordedInDirectory()).toEqual(Object.fromEntries(sizes.map((bytes, database) => [database, bytes])));
    for (const [database, db] of databases().entries()) {
      expect(await db.prepare('select bytes from database_sizes where database = ?').bind(database).first('bytes')).toBe(sizes[database]);
    }
  });
});

describe('placement by room', () => {
  const GB = 1_000_000_000;
  const vars = { DATABASE_MAX_BYTES: String(10 * GB) };
  const createAccount = (email = uniqueEmail()) => send(vars, 'POST', '/admin/accounts', { body: { name: 'Placed', email } });

  it('a new account goes to the database with the most room, one past 80 % takes none', async () => {
    await recordSize(0, 7.5 * GB);
    await recordSize(1, 2 * GB);
    await recordSize(2, 8.5 * GB);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createAccount());
    expect(made.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(made.map((r) => databaseOfId(r.body.id))).toEqual([1, 1, 1]);
    // DB_2 fills past DB; DB_3 stays past 80 %.
    await recordSize(1, 7.9 * GB);
    const next = await createAccount();
    expect(databaseOfId(next.body.id)).toBe(0);
  });

  it('databases within a hundredth of the limit of each other take turns by their number of accounts', async () => {
    await recordSize(0, 3.01 * GB);
    await recordSize(1, 3.05 * GB);
    await recordSize(2, 6 * GB);
    const counts = async () => {
      const { results } = await env.DB.prepare('select database, count(*) as n from account_directory group by database').all<{ database: number; n: number }>();
      return Object.fromEntries(results.map((row) => [row.database, row.n]));
    };
    const before = await counts();
    for (let i = 0; i < 4; i++) expect((await createAccount()).status).toBe(201);
    const after = await counts();
    const added = (d: number) => (after[d] ?? 0) - (before[d] ?? 0);
    expect(added(0) + added(1)).toBe(4);
    expect(added(2)).toBe(0);
    expect(Math.abs(((before[0] ?? 0) + added(0)) - ((before[1] ?? 0) + added(1)))).toBeLessThanOrEqual(Math.max(1, Math.abs((before[0] ?? 0) - (before[1] ?? 0))));
  });

  it('with every database past 80 %, a create is 507 insufficient_storage and writes nothing', async () => {
    for (let d = 0; d < databases().length; d++) await recordSize(d, 8.2 * GB);
    const email = uniqueEmail();
    const refused = await createAccount(email);
    expect(refused.status).toBe(507);
    expect(refused.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 507, code: 'insufficient_storage', type: 'tag:scenario-service,2026:problems/insufficient_storage' });
    expect(await env.DB.prepare('select count(*) as n from account_directory where lower(email) = lower(?)').bind(email).first('n')).toBe(0);
    for (const db of databases()) expect(await db.prepare('select count(*) as n from accounts where lower(email) = lower(?)').bind(email).first('n')).toBe(0);
    // Room again (a database cleaned up, or one added): the same address is accepted.
    await recordSize(2, 1 * GB);
    const placed = await createAccount(email);
    expect(placed.status).toBe(201);
    expect(databaseOfId(placed.body.id)).toBe(2);
  });
});

describe('507 insufficient_storage at the limit, nothing written', () => {
  it('a create, a save and a patch that would take the database past DATABASE_MAX_BYTES are 507; reads and deletes still work', async () => {
    const { account, key } = await createAccountWithKeyOn(1);
    const home = dbOf(account.id);
    await createScenario(key);
    // Recorded by a write with a 100 MB limit (its step, 100 KB, passed from nothing): the real size.
    const first = await send({ DATABASE_MAX_BYTES: '100000000' }, 'POST', '/scenarios', { key, body: { scenarioData: scenarioData() } });
    expect(first.status).toBe(201);
    const recorded = (await home.prepare('select bytes from database_sizes where database = 1').first<{ bytes: number }>())!.bytes;
    // A limit 100 bytes above it: any scenario's data is more than that.
    const full = { DATABASE_MAX_BYTES: String(recorded + 100) };
    const before = await snapshot(home, account.id);

    const create = await send(full, 'POST', '/scenarios', { key, body: { scenarioData: scenarioData() } });
    expect(create.status).toBe(507);
    expect(create.body).toMatchObject({ status: 507, code: 'insufficient_storage', title: 'Insufficient storage' });
    expect(create.body.detail).toMatch(/nothing was written/);
    expect(create.callsInAll).toBe(1);
    const idempotent = await send(full, 'POST', '/scenarios', { key, body: { scenarioData: scenarioData() }, headers: { 'Idempotency-Key': crypto.randomUUID() } });
    expect(idempotent.status).toBe(507);
    const token = first.body.data.scenario.token;
    const save = await send(full, 'POST', '/scenarios/save', { key, body: { token, scenarioData: scenarioData({ year: 2025 }) } });
    expect(save.status).toBe(507);
    expect(save.callsInAll).toBe(1);
    const patch = await send(full, 'PATCH', `/scenarios/${token}`, { key, body: { year: 2025 }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(patch.status).toBe(507);
    expect(await snapshot(home, account.id)).toEqual(before);

    expect((await send(full, 'GET', `/scenarios/${token}`, { key })).status).toBe(200);
    // A delete frees room, so it is never refused for it.
    expect((await send(full, 'DELETE', `/scenarios/${token}`, { key })).status).toBe(200);
    expect((await send(full, 'GET', `/scenarios/${token}`, { key })).status).toBe(404);
    // The same writes under the real limit go through.
    expect((await send({}, 'POST', '/scenarios', { key, body: { scenarioData: scenarioData() } })).status).toBe(201);
  });

  it('only the database past its limit refuses: an account on another keeps writing', async () => {
    const full = await createAccountWithKeyOn(1);
    const other = await createAccountWithKeyOn(2);
    await recordSize(1, 1_000_000_000 - 200);
    const vars = { DATABASE_MAX_BYTES: '1000000000' };
    expect((await send(vars, 'POST', '/scenarios', { key: full.key, body: { scenarioData: scenarioData() } })).status).toBe(507);
    expect((await send(vars, 'POST', '/scenarios', { key: other.key, body: { scenarioData: scenarioData() } })).status).toBe(201);
  });

  it("D1's own refusal of a full database is the same 507, never a raw D1 error, and changes nothing", async () => {
    const { account, key } = await createAccountWithKeyOn(0);
    const { token } = await createScenario(key);
    const home = dbOf(account.id);
    const before = await snapshot(home, account.id);
    // As production's D1 words it at its 10 GB (the batch is refused whole, so nothing is applied).
    const fail = (sql: string[]) => (sql.some((s) => /^(insert into|update) `scenarios`/.test(s)) ? new Error('D1_ERROR: Exceeded maximum DB size: SQLITE_FULL') : null);
    const create = await send({}, 'POST', '/scenarios', { key, body: { scenarioData: scenarioData() }, fail });
    expect(create.status).toBe(507);
    expect(create.body).toMatchObject({ code: 'insufficient_storage' });
    expect(JSON.stringify(create.body)).not.toMatch(/D1_ERROR|SQLITE/);
    // Not a transient fault: tried once, not retried.
    expect(create.callsInAll).toBe(1);
    const save = await send({}, 'POST', '/scenarios/save', { key, body: { token, scenarioData: scenarioData({ year: 2025 }) }, fail });
    expect(save.status).toBe(507);
    // SQLite's own words for it too.
    const sqliteFull = () => new Error('D1_ERROR: database or disk is full: SQLITE_FULL');
    const other = await send({}, 'POST', '/scenarios/save', { key, body: { token, scenarioData: scenarioData({ year: 2024 }) }, fail: (sql) => (fail(sql) ? sqliteFull() : null) });
    expect(other.status).toBe(507);
    expect(await snapshot(home, account.id)).toEqual(before);
  });
});
