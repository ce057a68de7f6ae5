// Authentication and authorisation of the scenario API: API keys, scopes, tenant isolation.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from './worker-entry.ts';
import { wrapD1 } from './helpers/wrapped-d1.ts';
import { readDatabases } from '../src/env.ts';
import { describe, expect, it } from 'vitest';
import { generateApiKey, isWellFormedApiKey } from '../src/auth/api-key.ts';
import { ADMIN_TOKEN, admin, api, createAccount, createAccountWithKey, createKey, createScenario, scenarioData, send, type Reply } from './helpers/api.ts';
import {
  everythingStored,
  expectProblem,
  expectUnauthorized,
  flipLastChar,
  freshAddress,
  pollUntil,
  sha256HexOf,
  sleep,
  snapshot,
} from './helpers/contract.ts';
import { everyDb } from './helpers/databases.ts';

/** A client that sends this exact Authorization header (or none) from an address of its own. */
const as = (authorization?: string) => api(undefined, { ...freshAddress(), ...(authorization === undefined ? {} : { Authorization: authorization }) });

/** The key as the admin API lists it. */
async function keyRow(accountId: number, keyId: number) {
  const res = await admin().get(`/admin/accounts/${accountId}/keys`);
  return res.body.data.find((k: { id: number }) => k.id === keyId) as { last_used_at: string | null; revoked_at: string | null };
}

describe('requests without a valid API key get 401 with WWW-Authenticate: Bearer', () => {
  it('no Authorization header', async () => {
    expectUnauthorized(await as().get('/me'));
    expectUnauthorized(await as().get('/scenarios'));
  });

  it('a scheme other than Bearer', async () => {
    const { key } = await createAccountWithKey();
    expectUnauthorized(await as(`Basic ${btoa(`${key}:`)}`).get('/me'));
    expectUnauthorized(await as(`Token ${key}`).get('/me'));
    expectUnauthorized(await as(key).get('/me'));
  });

  it('a malformed key: wrong prefix, wrong length, bad checksum', async () => {
    const { key } = await createAccountWithKey();
    expect((await api(key).get('/me')).status).toBe(200);
    for (const bad of [`sk_${key.slice(4)}`, `xyz_${key.slice(4)}`, key.slice(0, -1), `${key}a`, flipLastChar(key), 'Bearer', '']) {
      const res = await as(`Bearer ${bad}`).get('/me');
      expectUnauthorized(res);
      if (bad) expect(res.text).not.toContain(bad);
    }
  });

  it('a well-formed key that was never issued', async () => {
    const unknown = generateApiKey();
    expect(isWellFormedApiKey(unknown)).toBe(true);
    const res = await as(`Bearer ${unknown}`).get('/scenarios');
    expectUnauthorized(res);
    expect(res.text).not.toContain(unknown);
  });

  it('a revoked key is refused from the very next request', async () => {
    const { key, keyId } = await createAccountWithKey();
    expect((await api(key).get('/me')).status).toBe(200);
    expect((await admin().delete(`/admin/keys/${keyId}`)).status).toBe(200);
    const res = await as(`Bearer ${key}`).get('/me');
    expectUnauthorized(res);
    expect(res.text).not.toContain(key);
    expectUnauthorized(await as(`Bearer ${key}`).get('/scenarios'));
  });

  it('an expired key is refused once its expires_at has passed', async () => {
    const account = await createAccount();
    const { key } = await createKey(account.id, { expires_at: new Date(Date.now() + 1200).toISOString() });
    expect((await api(key).get('/me')).status).toBe(200);
    await sleep(1300);
    const res = await as(`Bearer ${key}`).get('/me');
    expectUnauthorized(res);
    expect(res.text).not.toContain(key);
  });

  it('the admin token is not an API key: 401 on /me and /scenarios', async () => {
    expectUnauthorized(await as(`Bearer ${ADMIN_TOKEN}`).get('/me'));
    expectUnauthorized(await as(`Bearer ${ADMIN_TOKEN}`).get('/scenarios'));
    const res = await as(`Bearer ${ADMIN_TOKEN}`).post('/scenarios', { scenarioData: scenarioData() });
    expectUnauthorized(res);
    expect(res.text).not.toContain(ADMIN_TOKEN);
  });

  it('the Bearer scheme name is case-insensitive (RFC 9110)', async () => {
    const { key } = await createAccountWithKey();
    expect((await as(`bearer ${key}`).get('/me')).status).toBe(200);
  });
});

describe('a throttled address: failing credentials get 429, valid API keys keep working', () => {
  /** Sends failures until the limiter answers 429; its window is aligned to the clock, so a boundary may reset it once. */
  async function throttle(fail: (i: number) => Promise<Reply>): Promise<void> {
    let first429 = -1;
    for (let i = 0; i < 125 && first429 < 0; i++) if ((await fail(i)).status === 429) first429 = i;
    expect(first429).toBeGreaterThanOrEqual(60);
  }

  /** What a guesser sees of an answer: all of it but the request id. */
  function seen(res: Reply) {
    const { request_id: _id, ...body } = res.body;
    const header = (name: string) => res.headers.get(name);
    return { status: res.status, body, headers: ['Retry-After', 'RateLimit-Policy', 'RateLimit', 'WWW-Authenticate'].map(header) };
  }

  function expectThrottled(res: Reply): void {
    expectProblem(res, 429, 'rate_limited');
    expect(Number(res.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(res.headers.get('RateLimit-Policy')).toMatch(/^"failed-auth";/);
    expect(res.headers.get('RateLimit')).toMatch(/^"failed-auth";r=0;/);
  }

  /** The throttle's end moved into the past, as if its minute had gone by. */
  async function lapse(address: { 'cf-connecting-ip': string }): Promise<void> {
    // A throttle is written to every database (each key's batch reads its own database's).
    const { meta } = await everyDb.prepare('UPDATE auth_throttles SET until = ? WHERE address = ?').bind(Date.now() - 1, address['cf-connecting-ip']).run();
    expect(meta.changes).toBe(readDatabases(env).length);
  }

  it('admin API: after 61 wrong tokens the correct token gets the very answer a wrong one gets, and changes nothing', async () => {
    const account = await createAccount();
    const address = freshAddress();
    const listKeys = (token: string) => api(token, address).get(`/admin/accounts/${account.id}/keys`);
    await throttle(() => listKeys('not-the-admin-token'));

    const before = await snapshot();
    const right = await listKeys(ADMIN_TOKEN);
    const wrong = await listKeys('not-the-admin-token-either');
    const create = await api(ADMIN_TOKEN, address).post('/admin/accounts', { name: 'Throttled', email: `throttled-${Date.now()}@example.com` });
    for (const res of [right, wrong, create]) expectThrottled(res);
    expect(seen(right)).toEqual(seen(wrong));
    expect(seen(create)).toEqual(seen(wrong));
    expect(await snapshot()).toEqual(before);

    // Another address is not affected; once the minute is over, the right token works again.
    expect((await api(ADMIN_TOKEN, freshAddress()).get(`/admin/accounts/${account.id}/keys`)).status).toBe(200);
    await lapse(address);
    expect((await listKeys(ADMIN_TOKEN)).status).toBe(200);
  });

  it('API keys: after 61 malformed and unknown keys, failing keys get 429 while a valid key keeps working', async () => {
    const { key, account } = await createAccountWithKey();
    const revoked = await createKey(account.id);
    await admin().delete(`/admin/keys/${revoked.id}`);
    const scenario = await createScenario(key);
    const address = freshAddress();
    await throttle((i) => api(i % 2 === 0 ? 'scn_not-a-key' : generateApiKey(), address).get('/me'));

    // Failing credentials get the throttle's answer, all alike, and change nothing.
    const before = await snapshot();
    const as = (k: string) => api(k, address);
    const failing = [
      await as(generateApiKey()).get('/me'),
      await as('scn_not-a-key').get('/me'),
      await as(revoked.key).get('/me'),
      await as(revoked.key).post('/scenarios', { scenarioData: scenarioData() }),
      await as(flipLastChar(key)).delete(`/scenarios/${scenario.token}`),
    ];
    for (const res of failing) expectThrottled(res);
    for (const res of failing.slice(1)) expect(seen(res)).toEqual(seen(failing[0]!));
    expect(await snapshot()).toEqual(before);

    // The valid key is not locked out: everyone behind a shared address (every Worker's
    // subrequests reach Cloudflare from one) would be, and its ~178 random bits need no guard.
    const changed = { token: scenario.token, scenarioData: scenarioData({ year: 2031 }) };
    expect((await as(key).get('/me')).status).toBe(200);
    expect((await as(key).get(`/scenarios/${scenario.token}`)).status).toBe(200);
    expect((await as(key).post('/scenarios/save', changed)).status).toBe(200);
    expectProblem(await as(key).post('/scenarios', {}), 422, 'validation_failed');
    expect((await as(key).delete(`/scenarios/${scenario.token}`)).status).toBe(200);
  });
});

describe('scopes: a read key reads, and cannot write', () => {
  it('GET /me, GET /scenarios and GET /scenarios/{token} work with a read key', async () => {
    const account = await createAccount('Reader Co');
    const writer = await createKey(account.id);
    const reader = await createKey(account.id, { scope: 'read' });
    const scenario = await createScenario(writer.key);
    const me = await api(reader.key).get('/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ name: 'Reader Co', email: account.email, api_version: '2026-11-21' });
    const list = await api(reader.key).get('/scenarios');
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { token: string }) => s.token)).toEqual([scenario.token]);
    const view = await api(reader.key).get(`/scenarios/${scenario.token}`);
    expect(view.status).toBe(200);
    expect(view.body.data.scenario.token).toBe(scenario.token);
  });

  it('POST /scenarios, POST and PUT /scenarios/save and DELETE answer 403 forbidden and change nothing', async () => {
    const account = await createAccount();
    const writer = await createKey(account.id);
    const reader = await createKey(account.id, { scope: 'read' });
    const scenario = await createScenario(writer.key);
    const before = await snapshot();
    const changed = { token: scenario.token, scenarioData: scenarioData({ year: 2020 }) };
    const attempts = [
      await api(reader.key).post('/scenarios', { scenarioData: scenarioData() }),
      await api(reader.key).post('/scenarios', { scenarioData: scenarioData() }, { 'Idempotency-Key': 'read-only-try' }),
      await api(reader.key).post('/scenarios/save', changed),
      await api(reader.key).put('/scenarios/save', changed),
      await api(reader.key).delete(`/scenarios/${scenario.token}/delete`),
      await api(reader.key).delete(`/scenarios/${scenario.token}`),
    ];
    for (const res of attempts) {
      expectProblem(res, 403, 'forbidden');
      expect(res.text).not.toContain(reader.key);
    }
    expect(await snapshot()).toEqual(before);
    expect((await api(writer.key).get(`/scenarios/${scenario.token}`)).body.data.scenario.scenario_data.year).toBe(2026);
  });
});

describe('tenant isolation', () => {
  it("account B cannot view, save or delete account A's scenario: 404 like an unknown token, and A's scenario is unchanged", async () => {
    const a = await createAccountWithKey();
    const b = await createAccountWithKey();
    const scenario = await createScenario(a.key);
    const unknownToken = scenario.token === '100000000000000' ? '100000000000001' : '100000000000000';
    const before = await snapshot();

    const shape = (res: { body: Record<string, unknown> }) => ({ ...res.body, request_id: undefined });
    const unknownView = await api(b.key).get(`/scenarios/${unknownToken}`);
    expectProblem(unknownView, 404, 'not_found');

    const foreign = [
      await api(b.key).get(`/scenarios/${scenario.token}`),
      await api(b.key).post('/scenarios/save', { token: scenario.token, scenarioData: scenarioData({ year: 2001 }) }),
      await api(b.key).put('/scenarios/save', { token: scenario.token, scenarioData: scenarioData({ year: 2001 }) }),
      await api(b.key).delete(`/scenarios/${scenario.token}/delete`),
      await api(b.key).delete(`/scenarios/${scenario.token}`),
    ];
    const unknown = [
      unknownView,
      await api(b.key).post('/scenarios/save', { token: unknownToken, scenarioData: scenarioData({ year: 2001 }) }),
      await api(b.key).put('/scenarios/save', { token: unknownToken, scenarioData: scenarioData({ year: 2001 }) }),
      await api(b.key).delete(`/scenarios/${unknownToken}/delete`),
      await api(b.key).delete(`/scenarios/${unknownToken}`),
    ];
    foreign.forEach((res, i) => {
      expectProblem(res, 404, 'not_found');
      expect(shape(res)).toEqual(shape(unknown[i]!));
    });

    expect(await snapshot()).toEqual(before);
    expect((await api(b.key).get('/scenarios')).body.data).toEqual([]);
    const own = await api(a.key).get(`/scenarios/${scenario.token}`);
    expect(own.status).toBe(200);
    expect(own.body.data.scenario.scenario_data).toEqual(scenario.scenario_data);
  });
});

describe('API keys', () => {
  it('generateApiKey gives distinct keys of the form scn_ + 36 base62 characters that isWellFormedApiKey accepts', () => {
    const keys = Array.from({ length: 200 }, () => generateApiKey());
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) {
      expect(key).toMatch(/^scn_[0-9A-Za-z]{36}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('isWellFormedApiKey refuses a wrong prefix, a wrong length and a broken checksum', () => {
    const key = generateApiKey();
    expect(isWellFormedApiKey(`scx_${key.slice(4)}`)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`${key}0`)).toBe(false);
    expect(isWellFormedApiKey(flipLastChar(key))).toBe(false);
    // A change in the random part is caught by the checksum too.
    const middle = key[10] === 'Q' ? 'R' : 'Q';
    expect(isWellFormedApiKey(key.slice(0, 10) + middle + key.slice(11))).toBe(false);
    expect(isWellFormedApiKey(` ${key}`)).toBe(false);
  });

  it('the database stores only the SHA-256 hash of a key and a short display prefix', async () => {
    const { key, keyId } = await createAccountWithKey();
    expect((await api(key).get('/me')).status).toBe(200);
    const row = await everyDb.prepare('SELECT * FROM api_keys WHERE id = ?').bind(keyId).first<Record<string, unknown>>();
    expect(row).not.toBeNull();
    expect(row!.key_hash).toBe(await sha256HexOf(key));
    expect(row!.prefix).toBe(key.slice(0, 10));
    for (const value of Object.values(row!)) {
      expect(String(value)).not.toContain(key);
      expect(String(value)).not.toContain(key.slice(10));
    }
    const stored = await everythingStored();
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(key.slice(10));
  });

  it("touches last_used_at in a D1 session of its own: the request's session makes its one round trip only", async () => {
    const { account, key, keyId } = await createAccountWithKey();
    // Each session the Worker opens, with the statements it sends. A second query in the request's
    // session would make workerd's D1 API compare bookmarks with localeCompare, whose first call
    // builds ICU's collator (about 70 M instructions on an isolate's first request).
    const sessions: Array<{ constraint: string | undefined; sql: string[] }> = [];
    const watched = (db: D1Database) =>
      new Proxy(db, {
        get(target, prop) {
          if (prop !== 'withSession') {
            const value: unknown = Reflect.get(target, prop, target);
            return typeof value === 'function' ? value.bind(target) : value;
          }
          return (constraint?: string) => {
            const session = { constraint, sql: [] as string[] };
            sessions.push(session);
            return wrapD1(target.withSession(constraint), { bind: (sql) => session.sql.push(sql) });
          };
        },
      });
    const bindings = Object.fromEntries(readDatabases(env).map((db, i) => [i === 0 ? 'DB' : `DB_${i + 1}`, watched(db)]));
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request('http://scenario.test/me', { headers: { Authorization: `Bearer ${key}` } }) as Request<unknown, IncomingRequestCfProperties>, { ...env, ...bindings }, ctx);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    await waitOnExecutionContext(ctx);
    const used = sessions.filter((session) => session.sql.length > 0);
    expect(used).toHaveLength(2);
    expect(used[0]!.sql.some((sql) => sql.includes('update `api_keys`'))).toBe(false);
    expect(used[1]).toEqual({ constraint: 'first-primary', sql: [expect.stringContaining('update `api_keys` set `last_used_at`')] });
    expect((await keyRow(account.id, keyId)).last_used_at).not.toBeNull();
  });

  it('last_used_at is set after a request, and not rewritten by another request within the same minute', async () => {
    const { account, key, keyId } = await createAccountWithKey();
    const row = () => keyRow(account.id, keyId);
    expect((await row()).last_used_at).toBeNull();
    const startedAt = Date.now();
    expect((await api(key).get('/me')).status).toBe(200);
    const first = (await pollUntil(row, (k) => k.last_used_at !== null)).last_used_at;
    expect(first).not.toBeNull();
    expect(Date.parse(first!)).toBeGreaterThanOrEqual(startedAt - 1000);
    expect(Date.parse(first!)).toBeLessThanOrEqual(Date.now());

    await sleep(20);
    expect((await api(key).get('/scenarios')).status).toBe(200);
    await sleep(200);
    expect((await row()).last_used_at).toBe(first);

    // Once the recorded use is more than a minute old, the next request records it again.
    await everyDb.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').bind(Date.now() - 120_000, keyId).run();
    const backdated = (await row()).last_used_at;
    expect((await api(key).get('/me')).status).toBe(200);
    const renewed = (await pollUntil(row, (k) => k.last_used_at !== backdated)).last_used_at;
    expect(Date.parse(renewed!)).toBeGreaterThan(Date.parse(backdated!) + 60_000);
  });

  it('a refused key is not recorded as used', async () => {
    const { account, key, keyId } = await createAccountWithKey();
    await admin().delete(`/admin/keys/${keyId}`);
    expectUnauthorized(await as(`Bearer ${key}`).get('/me'));
    await sleep(200);
    expect((await keyRow(account.id, keyId)).last_used_at).toBeNull();
  });
});

describe('problem bodies never contain the key', () => {
  it('401, 403 and 404 bodies and headers hold no key material', async () => {
    const { key } = await createAccountWithKey({ scope: 'read' });
    const replies = [
      await api(key).post('/scenarios', { scenarioData: scenarioData() }),
      await api(key).get('/scenarios/123456789012345'),
      await send('GET', '/me', { headers: { Authorization: `Bearer ${flipLastChar(key)}`, ...freshAddress() } }),
    ];
    for (const res of replies) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.text).not.toContain(key.slice(10));
      for (const [, value] of res.headers) expect(value).not.toContain(key.slice(10));
    }
  });
});
