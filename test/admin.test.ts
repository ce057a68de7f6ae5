// The admin API the account dashboard calls (docs/decisions.md: "Authentication and accounts").
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, api, createAccount, createAccountWithKey, createKey, uniqueEmail } from './helpers/api.ts';
import { expectProblem, expectUnauthorized, freshAddress, sha256HexOf, snapshot, TIMESTAMP } from './helpers/contract.ts';
import { everyDb } from './helpers/databases.ts';

const KEY_FIELDS = ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at', 'scope'];

describe('POST /admin/accounts', () => {
  it('201 with {id, name, email, created_at, api_version}', async () => {
    const email = uniqueEmail();
    const before = Date.now();
    const res = await admin().post('/admin/accounts', { name: 'Acme Benefits Lab', email });
    expect(res.status).toBe(201);
    expect(res.headers.get('Content-Type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(res.body).sort()).toEqual(['api_version', 'created_at', 'email', 'id', 'name']);
    expect(res.body.api_version).toBe('2026-11-21');
    expect(res.body).toMatchObject({ name: 'Acme Benefits Lab', email });
    expect(Number.isInteger(res.body.id)).toBe(true);
    expect(res.body.created_at).toMatch(TIMESTAMP);
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 1000);
    const row = await everyDb.prepare('SELECT name, email FROM accounts WHERE id = ?').bind(res.body.id).first();
    expect(row).toEqual({ name: 'Acme Benefits Lab', email });
  });

  it('a duplicate e-mail address, in any letter case, is 409 conflict', async () => {
    const email = uniqueEmail();
    expect((await admin().post('/admin/accounts', { name: 'First', email })).status).toBe(201);
    const before = await snapshot();
    expectProblem(await admin().post('/admin/accounts', { name: 'Second', email }), 409, 'conflict');
    expectProblem(await admin().post('/admin/accounts', { name: 'Third', email: email.toUpperCase() }), 409, 'conflict');
    expect(await snapshot()).toEqual(before);
  });

  it('an invalid e-mail address or name is 422 validation_failed naming the field', async () => {
    const before = await snapshot();
    const cases: Array<[unknown, string]> = [
      [{ name: 'No Email' }, 'email'],
      [{ name: 'Bad', email: 'not-an-email' }, 'email'],
      [{ name: 'Bad', email: 42 }, 'email'],
      [{ email: uniqueEmail() }, 'name'],
      [{ name: '', email: uniqueEmail() }, 'name'],
      [{ name: '   ', email: uniqueEmail() }, 'name'],
      [{ name: 'x'.repeat(201), email: uniqueEmail() }, 'name'],
      [{ name: 'Extra', email: uniqueEmail(), role: 'owner' }, 'role'],
    ];
    for (const [body, path] of cases) {
      const res = await admin().post('/admin/accounts', body);
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('a body that is not JSON is 400 invalid_json', async () => {
    const res = await admin().send('POST', '/admin/accounts', { headers: { 'Content-Type': 'application/json' }, raw: '{"name":' });
    expectProblem(res, 400, 'invalid_json');
  });
});

describe('POST /admin/accounts/{id}/keys', () => {
  it('201 with the full key (shown once) and {id, prefix, name, scope, created_at, expires_at}; scope defaults to read_write', async () => {
    const account = await createAccount();
    const res = await admin().post(`/admin/accounts/${account.id}/keys`, { name: 'CI' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'expires_at', 'id', 'key', 'name', 'prefix', 'scope']);
    expect(res.body).toMatchObject({ name: 'CI', scope: 'read_write', expires_at: null });
    expect(res.body.key).toMatch(/^scn_[0-9A-Za-z]{36}$/);
    expect(res.body.key.startsWith(res.body.prefix)).toBe(true);
    expect(res.body.prefix.length).toBeLessThan(res.body.key.length / 2);
    expect(res.body.created_at).toMatch(TIMESTAMP);
    const me = await api(res.body.key).get('/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ name: account.name, email: account.email, api_version: '2026-11-21' });
  });

  it('an empty body makes an unnamed read_write key', async () => {
    const account = await createAccount();
    const res = await admin().post(`/admin/accounts/${account.id}/keys`, {});
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: null, scope: 'read_write', expires_at: null });
  });

  it('scope read makes a read-only key', async () => {
    const account = await createAccount();
    const res = await admin().post(`/admin/accounts/${account.id}/keys`, { scope: 'read' });
    expect(res.status).toBe(201);
    expect(res.body.scope).toBe('read');
    expect((await api(res.body.key).get('/scenarios')).status).toBe(200);
    expect((await api(res.body.key).post('/scenarios', {})).status).toBe(403);
  });

  it('expires_at accepts any RFC 3339 timestamp and is returned in UTC with microseconds', async () => {
    const account = await createAccount();
    const res = await admin().post(`/admin/accounts/${account.id}/keys`, { expires_at: '2099-01-01T00:00:00.5+02:00' });
    expect(res.status).toBe(201);
    expect(res.body.expires_at).toBe('2098-12-31T22:00:00.500000Z');
    expect((await api(res.body.key).get('/me')).status).toBe(200);
  });

  it('an expires_at in the past, a malformed one, or a bad scope or name is 422 and creates no key', async () => {
    const account = await createAccount();
    const before = await snapshot();
    const cases: Array<[unknown, string]> = [
      [{ expires_at: new Date(Date.now() - 60_000).toISOString() }, 'expires_at'],
      [{ expires_at: 'tomorrow' }, 'expires_at'],
      [{ expires_at: '2099-01-01' }, 'expires_at'],
      [{ expires_at: '2099-13-45T00:00:00Z' }, 'expires_at'],
      [{ expires_at: '2099-02-30T00:00:00Z' }, 'expires_at'],
      [{ expires_at: '2099-01-01T24:00:00Z' }, 'expires_at'],
      [{ expires_at: 4102444800 }, 'expires_at'],
      [{ scope: 'admin' }, 'scope'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ key: 'scn_chosen_by_the_client_000000000000' }, 'key'],
    ];
    for (const [body, path] of cases) {
      const res = await admin().post(`/admin/accounts/${account.id}/keys`, body);
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('an unknown account is 404 not_found', async () => {
    const before = await snapshot();
    const unknown = await admin().post('/admin/accounts/999999/keys', {});
    expectProblem(unknown, 404, 'not_found');
    // An id that cannot exist gets the route's own answer (routing.ts takes it from the definition).
    const malformed = await admin().post('/admin/accounts/abc/keys', {});
    expectProblem(malformed, 404, 'not_found');
    expect(malformed.body.detail).toBe(unknown.body.detail);
    expect(await snapshot()).toEqual(before);
  });
});

describe('GET /admin/accounts/{id}/keys', () => {
  it('{data: [...]} of that account only, newest first, without the key or its hash', async () => {
    const account = await createAccount();
    const other = await createAccount();
    const first = await createKey(account.id, { name: 'first' });
    const second = await createKey(account.id, { name: 'second', scope: 'read', expires_at: '2099-06-01T00:00:00Z' });
    await createKey(other.id, { name: 'not mine' });

    const res = await admin().get(`/admin/accounts/${account.id}/keys`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data.map((k: { id: number }) => k.id)).toEqual([second.id, first.id]);
    for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual(KEY_FIELDS);
    expect(res.body.data[0]).toMatchObject({
      name: 'second',
      scope: 'read',
      prefix: second.prefix,
      expires_at: '2099-06-01T00:00:00.000000Z',
      last_used_at: null,
      revoked_at: null,
    });
    for (const secret of [first.key, second.key, await sha256HexOf(first.key), await sha256HexOf(second.key)]) {
      expect(res.text).not.toContain(secret);
    }
  });

  it('shows last_used_at once a key is used and revoked_at once it is revoked', async () => {
    const { account, key, keyId } = await createAccountWithKey();
    expect((await api(key).get('/me')).status).toBe(200);
    expect((await admin().delete(`/admin/keys/${keyId}`)).status).toBe(200);
    let item: Record<string, string | null> = {};
    for (let i = 0; i < 40 && !item.last_used_at; i++) {
      item = (await admin().get(`/admin/accounts/${account.id}/keys`)).body.data[0];
      if (!item.last_used_at) await new Promise((r) => setTimeout(r, 25));
    }
    expect(item.last_used_at).toMatch(TIMESTAMP);
    expect(item.revoked_at).toMatch(TIMESTAMP);
  });

  it('an account without keys lists an empty array; an unknown account is 404', async () => {
    const account = await createAccount();
    expect((await admin().get(`/admin/accounts/${account.id}/keys`)).body).toEqual({ data: [] });
    expectProblem(await admin().get('/admin/accounts/999999/keys'), 404, 'not_found');
  });
});

describe('DELETE /admin/keys/{id}', () => {
  it('revokes the key (200, the key without secrets, revoked_at set); it is refused from the next request on', async () => {
    const { key, keyId } = await createAccountWithKey();
    const res = await admin().delete(`/admin/keys/${keyId}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(KEY_FIELDS);
    expect(res.body.id).toBe(keyId);
    expect(res.body.revoked_at).toMatch(TIMESTAMP);
    expect(res.text).not.toContain(key);
    expectUnauthorized(await api(key, freshAddress()).get('/me'));
  });

  it('revoking again keeps the first revoked_at', async () => {
    const { keyId } = await createAccountWithKey();
    const first = await admin().delete(`/admin/keys/${keyId}`);
    await new Promise((r) => setTimeout(r, 5));
    const second = await admin().delete(`/admin/keys/${keyId}`);
    expect(second.status).toBe(200);
    expect(second.body.revoked_at).toBe(first.body.revoked_at);
  });

  it('revoking one key leaves the account’s other keys working', async () => {
    const account = await createAccount();
    const a = await createKey(account.id);
    const b = await createKey(account.id);
    await admin().delete(`/admin/keys/${a.id}`);
    expect((await api(b.key).get('/me')).status).toBe(200);
  });

  it('an unknown key is 404 not_found', async () => {
    const unknown = await admin().delete('/admin/keys/999999');
    expectProblem(unknown, 404, 'not_found');
    expect(unknown.body.detail).toBe('No key with that id');
    expectProblem(await admin().delete('/admin/keys/0'), 404, 'not_found');
    expect((await admin().delete('/admin/keys/0')).body.detail).toBe(unknown.body.detail);
  });
});

describe('admin authentication', () => {
  const routes = (accountId: number, keyId: number): Array<[string, string, unknown?]> => [
    ['POST', '/admin/accounts', { name: 'Intruder', email: uniqueEmail() }],
    ['POST', `/admin/accounts/${accountId}/keys`, {}],
    ['GET', `/admin/accounts/${accountId}/keys`],
    ['DELETE', `/admin/keys/${keyId}`],
  ];

  it('a missing or wrong admin token is 401 on every admin route and changes nothing', async () => {
    const { account, keyId } = await createAccountWithKey();
    const before = await snapshot();
    const credentials: Array<Record<string, string>> = [
      {},
      { Authorization: `Bearer ${ADMIN_TOKEN}x` },
      { Authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` },
      { Authorization: 'Bearer ' },
      { Authorization: ADMIN_TOKEN },
      { Authorization: `Basic ${btoa(`admin:${ADMIN_TOKEN}`)}` },
    ];
    for (const headers of credentials) {
      for (const [method, path, body] of routes(account.id, keyId)) {
        const res = await api(undefined, { ...freshAddress(), ...headers }).send(method, path, body === undefined ? {} : { body });
        expectUnauthorized(res);
        expect(res.text).not.toContain(ADMIN_TOKEN);
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('an API key is 401 on every admin route, even a read_write key of the account itself', async () => {
    const { account, key, keyId } = await createAccountWithKey();
    const before = await snapshot();
    for (const [method, path, body] of routes(account.id, keyId)) {
      expectUnauthorized(await api(key, freshAddress()).send(method, path, body === undefined ? {} : { body }));
    }
    expect(await snapshot()).toEqual(before);
    expect((await api(key).get('/me')).status).toBe(200);
  });

  it('the admin token is checked before the body: no token and an invalid body is 401, not 422', async () => {
    expectUnauthorized(await api(undefined, freshAddress()).post('/admin/accounts', { name: '' }));
  });
});
