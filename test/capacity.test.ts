// Accounts spread over several D1 databases (docs/decisions.md, "Capacity past one database"):
// keys and ids name their database, new accounts go to the one with the fewest while their sizes are
// alike (placement by room: test/storage.test.ts), e-mail addresses
// stay unique across all of them, every API request still makes one round trip, the chart, the
// queue and the crons serve every database, and a deployment with only DB works as one.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { apiKeyDatabase, generateApiKey, hashApiKey, isWellFormedApiKey, KEY_DATABASES } from '../src/auth/api-key.ts';
import { keyed } from '../src/auth/keyed.ts';
import { ScenarioDataInputSchema } from '../src/scenarios/schema.ts';
import { createScenario as createScenarioDirectly, newEventId } from '../src/scenarios/workflows.ts';
import { databaseOfId, ID_BLOCK, MAX_DATABASES } from '../src/db/databases.ts';
import { readDatabases } from '../src/env.ts';
import worker from './worker-entry.ts';
import { ADMIN_TOKEN, BASE, admin, api, createAccount, createAccountWithKey, createAccountWithKeyOn, createScenario, dbOf, scenarioData, send, uniqueEmail } from './helpers/api.ts';
import { eventually, hookUrl, received, receiverName, registerEndpoint, verified } from './helpers/webhooks.ts';
import { roundTripsOf } from './helpers/worker-on.ts';

const databases = () => readDatabases(env);

describe('the databases', () => {
  it('the tests run with the three databases wrangler.toml lists, DB first', () => {
    expect(databases()).toHaveLength(3);
    expect(databases()[0]).toBe(env.DB);
  });

  it('with sizes alike (none recorded), new accounts go to the database with the fewest accounts, so they land on every one', async () => {
    const made = [];
    for (let i = 0; i < 6; i++) made.push(await createAccount());
    const counts = [0, 0, 0];
    for (const account of made) counts[databaseOfId(account.id)]! += 1;
    // Each test file starts from empty databases: six accounts are two on each.
    expect(counts).toEqual([2, 2, 2]);
    for (const account of made) {
      const row = await dbOf(account.id).prepare('select email from accounts where id = ?').bind(account.id).first();
      expect(row).toEqual({ email: account.email });
    }
  });

  it('an account is whole in its database: its key, scenarios, revisions and events', async () => {
    const { account, key, keyId } = await createAccountWithKeyOn(2);
    const home = databaseOfId(account.id);
    expect(databaseOfId(keyId)).toBe(home);
    expect(apiKeyDatabase(key)).toBe(home);
    const { token } = await createScenario(key);
    expect((await api(key).post('/scenarios/save', { token, scenarioData: (await api(key).get(`/scenarios/${token}`)).body.data.scenario.scenario_data })).status).toBe(200);
    for (const [i, db] of databases().entries()) {
      const n = async (sql: string) => (await db.prepare(sql).bind(account.id).first<{ n: number }>())!.n;
      const here = i === home;
      expect(await n('select count(*) as n from accounts where id = ?')).toBe(here ? 1 : 0);
      expect(await n('select count(*) as n from api_keys where account_id = ?')).toBe(here ? 1 : 0);
      expect(await n('select count(*) as n from scenarios where account_id = ?')).toBe(here ? 1 : 0);
      expect(await n('select count(*) as n from events where account_id = ?')).toBe(here ? 2 : 0);
      expect(await n('select count(*) as n from scenario_revisions r join scenarios s on s.id = r.scenario_id where s.account_id = ?')).toBe(here ? 2 : 0);
    }
  });
});

describe('still one round trip', () => {
  it('on every database: view, create and save with a key of an account on each', async () => {
    const seen = new Set<number>();
    while (seen.size < databases().length) {
      const { account, key } = await createAccountWithKey();
      if (seen.has(databaseOfId(account.id))) continue;
      seen.add(databaseOfId(account.id));
      const { token } = await createScenario(key);
      expect(await roundTripsOf(key, 'GET', '/me')).toEqual({ status: 200, calls: 1 });
      expect(await roundTripsOf(key, 'GET', `/scenarios/${token}`)).toEqual({ status: 200, calls: 1 });
      expect(await roundTripsOf(key, 'POST', '/scenarios', { scenarioData: (await api(key).get(`/scenarios/${token}`)).body.data.scenario.scenario_data })).toMatchObject({ status: 201, calls: 1 });
    }
  });
});

describe('the export follows the key', () => {
  it('exports an account on another database from that database', async () => {
    const { key } = await createAccountWithKeyOn(2);
    const tokens = [(await createScenario(key)).token, (await createScenario(key)).token];
    const res = await api(key).get('/scenarios/export');
    expect(res.status).toBe(200);
    expect(res.text.trim().split('\n').map((line: string) => JSON.parse(line).token)).toEqual([...tokens].reverse());
  });
});

describe('keys name their database', () => {
  it('the checksum carries the database: each of the 13 a key can name, and keys issued before name the first', () => {
    expect(KEY_DATABASES).toBe(MAX_DATABASES);
    for (let d = 0; d < KEY_DATABASES; d++) {
      const key = generateApiKey(d);
      expect(key).toMatch(/^scn_[0-9A-Za-z]{36}$/);
      expect(apiKeyDatabase(key)).toBe(d);
    }
    // A key of the old format: CRC-32 alone in its checksum (database 0), as generateApiKey() makes.
    expect(apiKeyDatabase(generateApiKey())).toBe(0);
    expect(() => generateApiKey(KEY_DATABASES)).toThrow(RangeError);
  });

  it('ids are numbered in blocks of 2^40, the number db/api-keys.ts newKeyId writes into its SQL', () => {
    expect(ID_BLOCK).toBe(1099511627776);
  });

  it('a changed checksum character is refused, never read as another database', () => {
    for (let d = 0; d < KEY_DATABASES; d++) {
      const key = generateApiKey(d);
      for (let i = key.length - 6; i < key.length; i++) {
        for (const c of 'Aa0Zz9') {
          if (key[i] === c) continue;
          expect(isWellFormedApiKey(key.slice(0, i) + c + key.slice(i + 1))).toBe(false);
        }
      }
    }
  });

  it('a well-formed key naming a database that is not bound is 401 like any unknown key', async () => {
    expect(databases().length).toBeLessThan(KEY_DATABASES);
    const res = await api(generateApiKey(KEY_DATABASES - 1), { 'cf-connecting-ip': '198.51.100.77' }).get('/me');
    expect(res.status).toBe(401);
  });

  it('ids name their database: ids of an unbound database are 404 on the admin API', async () => {
    const id = (KEY_DATABASES - 1) * ID_BLOCK + 1;
    expect((await admin().get(`/admin/accounts/${id}/keys`)).status).toBe(404);
    expect((await admin().post(`/admin/accounts/${id}/keys`, {})).status).toBe(404);
    expect((await admin().delete(`/admin/keys/${id}`)).status).toBe(404);
  });
});

describe('the directory', () => {
  it('e-mail addresses are unique across databases, in any letter case', async () => {
    const email = uniqueEmail();
    const first = await createAccount('First', email);
    // The next accounts would go elsewhere by count; the address still answers 409 on every try.
    for (let i = 0; i < 3; i++) expect((await admin().post('/admin/accounts', { name: 'Again', email: i % 2 ? email.toUpperCase() : email })).status).toBe(409);
    const row = await env.DB.prepare('select database from account_directory where email = ?').bind(email).first<{ database: number }>();
    expect(row?.database).toBe(databaseOfId(first.id));
  });

  it('the directory costs an account create one round trip more than an id look-up: the claim, which places it', async () => {
    // Every admin request first reads its address's failed-authentication throttle (admin/src/guard.ts).
    const { account } = await createAccountWithKeyOn(2);
    const issued = await roundTripsOf(ADMIN_TOKEN, 'POST', `/admin/accounts/${account.id}/keys`, {});
    expect(issued).toEqual({ status: 201, calls: 2 });
    expect(await roundTripsOf(ADMIN_TOKEN, 'GET', `/admin/accounts/${account.id}/keys`)).toEqual({ status: 200, calls: 2 });
    const created = await roundTripsOf(ADMIN_TOKEN, 'POST', '/admin/accounts', { name: 'Counted', email: uniqueEmail() });
    expect(created).toEqual({ status: 201, calls: issued.calls + 1 });
  });

  it('placement counts the directory: a database the directory says is fuller gets no new account until the others catch up', async () => {
    const before = await Promise.all([0, 1, 2].map(async (d) => (await env.DB.prepare('select count(*) as n from account_directory where database = ?').bind(d).first<{ n: number }>())!.n));
    // Database 0 made fuller by 3 entries (claims of addresses, no accounts behind them).
    for (let i = 0; i < 3 + Math.max(...before) - before[0]!; i++) {
      await env.DB.prepare("insert into account_directory (email, database, change_id, created_at) values (?, 0, 'chg_filler', ?)").bind(uniqueEmail(), Date.now()).run();
    }
    for (let i = 0; i < 4; i++) expect(databaseOfId((await createAccount()).id)).not.toBe(0);
  });

  it("a claim whose create never made the account is taken over by the next create of that address", async () => {
    const email = uniqueEmail();
    await env.DB.prepare("insert into account_directory (email, database, change_id, created_at) values (?, 2, 'chg_lost', ?)").bind(email, Date.now()).run();
    const made = await createAccount('Retaken', email);
    expect(databaseOfId(made.id)).toBe(2);
    expect((await admin().post('/admin/accounts', { name: 'Again', email })).status).toBe(409);
  });
});

describe('the chart, the queue and the crons follow the account', { timeout: 30_000 }, () => {
  it('a chart URL of an account on another database answers, without a key', async () => {
    const { key } = await createAccountWithKeyOn(1);
    const { chart_img } = await createScenario(key);
    const u = new URL(chart_img);
    const res = await send('GET', u.pathname + u.search);
    expect(res.status).toBe(200);
  });

  it("the queue delivers the events of accounts on every database, each from its own account's rows", async () => {
    const endpoints = [];
    for (let d = 0; d < databases().length; d++) {
      const { key } = await createAccountWithKeyOn(d);
      const name = receiverName();
      const endpoint = await registerEndpoint(key, hookUrl(name));
      const { token } = await createScenario(key);
      endpoints.push({ name, endpoint, token });
    }
    for (const { name, endpoint, token } of endpoints) {
      const got = await eventually(() => received(name), (list) => list.length >= 1);
      expect(got).toHaveLength(1);
      const event = verified(got[0]!, endpoint.secret);
      expect(event.type).toBe('scenario.created');
      expect(event.data.token).toBe(token);
    }
  });

  it('the two-minute cron queues the events never queued, on every database', async () => {
    const pending = [];
    for (let d = 0; d < databases().length; d++) {
      const { account, key } = await createAccountWithKeyOn(d);
      const name = receiverName();
      const endpoint = await registerEndpoint(key, hookUrl(name));
      // The change as a request makes it, minus the queue send (test/webhooks.delivery.test.ts).
      const eventId = newEventId();
      const keyCheck = { keyHash: await hashApiKey(key), now: Date.now(), address: 'capacity-cron' };
      await createScenarioDirectly(keyed(dbOf(account.id), keyCheck, 'write'), ScenarioDataInputSchema.parse(scenarioData()), eventId);
      await dbOf(account.id).prepare('update events set created_at = created_at - 61000 where id = ?').bind(eventId).run();
      await dbOf(account.id).prepare('update webhook_endpoints set created_at = created_at - 61000 where id = ?').bind(endpoint.id).run();
      pending.push({ name, endpoint, eventId });
    }
    await worker.scheduled(createScheduledController({ cron: '*/2 * * * *', scheduledTime: Date.now() }), env);
    for (const { name, endpoint, eventId } of pending) {
      const got = await eventually(() => received(name), (list) => list.length >= 1);
      expect(verified(got[0]!, endpoint.secret).id).toBe(eventId);
    }
  });

  it('the hourly cron prunes every database', async () => {
    const accounts = [];
    for (let d = 0; d < databases().length; d++) {
      const { account, key } = await createAccountWithKeyOn(d);
      await createScenario(key);
      // 31 days old: past the 30 days events are kept.
      await dbOf(account.id).prepare('update events set created_at = created_at - ? where account_id = ?').bind(31 * 86_400_000, account.id).run();
      accounts.push(account);
    }
    await worker.scheduled(createScheduledController({ cron: '17 * * * *', scheduledTime: Date.now() }), env);
    for (const account of accounts) {
      const left = await dbOf(account.id).prepare('select count(*) as n from events where account_id = ?').bind(account.id).first<{ n: number }>();
      expect(left?.n).toBe(0);
    }
  });
});

describe('one database (only DB bound)', () => {
  const onlyDb = { ...env, DB_2: undefined, DB_3: undefined } as unknown as Env;
  async function fetchOne(method: string, path: string, bearer: string, body?: unknown) {
    const ctx = createExecutionContext();
    const headers: Record<string, string> = { Authorization: `Bearer ${bearer}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await worker.fetch(new Request(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }) as Request<unknown, IncomingRequestCfProperties>, onlyDb, ctx);
    const text = await res.text();
    await waitOnExecutionContext(ctx);
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  it('every account and key is on DB, keys have the format of before, and the API works', async () => {
    expect(readDatabases(onlyDb)).toEqual([env.DB]);
    for (let i = 0; i < 3; i++) {
      const account = await fetchOne('POST', '/admin/accounts', ADMIN_TOKEN, { name: 'Solo', email: uniqueEmail() });
      expect(account.status).toBe(201);
      expect(databaseOfId(account.body.id)).toBe(0);
      const key = await fetchOne('POST', `/admin/accounts/${account.body.id}/keys`, ADMIN_TOKEN, {});
      expect(key.status).toBe(201);
      expect(apiKeyDatabase(key.body.key)).toBe(0);
      expect((await fetchOne('GET', '/me', key.body.key)).status).toBe(200);
    }
  });

  it('a key of an account the three-database deployment put elsewhere is unknown there', async () => {
    const elsewhere = await createAccountWithKeyOn(1);
    expect((await fetchOne('GET', '/me', elsewhere.key)).status).toBe(401);
  });
});
