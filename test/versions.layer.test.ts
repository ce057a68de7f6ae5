// API versions (docs/decisions.md, "API versions"): which version a request gets (the API-Version
// header, else the account's pinned version, else DEFAULT_API_VERSION), API-Version on every reply,
// the changelog, the account's version (GET /me, the admin API), one round trip whatever the
// version, and the rules that keep the mechanism in one place. What each change does is tested in
// its own file, test/versions.change.<change>.test.ts.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { routeTable } from '../src/app.ts';
import { VERSIONS } from '../src/versions/versions.ts';
import { CHANGE_DOCUMENTS } from '../src/versions/documents.ts';
import { API_VERSIONS, NEWEST_API_VERSION, SPEC_API_VERSION } from '../src/api-versions.ts';
import { admin, api, createAccountWithKey, dbOf, scenarioData } from './helpers/api.ts';
import { expectProblem, freshAddress } from './helpers/contract.ts';
import { faultyD1 } from './helpers/faulty-d1.ts';
import { sendOn } from './helpers/worker-on.ts';

const NEWEST = { 'API-Version': NEWEST_API_VERSION };
const SPEC = { 'API-Version': SPEC_API_VERSION };

async function created(key: string) {
  const res = await api(key, NEWEST).post('/scenarios', { scenarioData: scenarioData() });
  expect(res.status).toBe(201);
  return res.body.data as { token: string; id: number };
}

describe('which version a request gets', () => {
  it('without the header: the account’s pinned version (2026-11-21 for a new account by default)', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await created(key);
    const view = await api(key).get(`/scenarios/${token}`);
    expect(view.headers.get('API-Version')).toBe('2026-11-21');
    expect(view.body.data.status).toBe('success');
  });

  it('with the header: that version, whatever the account is pinned to', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await created(key);
    const newest = await api(key, NEWEST).get(`/scenarios/${token}`);
    expect(newest.headers.get('API-Version')).toBe('2026-12-01');
    expect(newest.body.data.token).toBe(token);
    const spec = await api(key, SPEC).get(`/scenarios/${token}`);
    expect(spec.headers.get('API-Version')).toBe('2026-11-21');
    expect(spec.body.data.scenario.token).toBe(token);
  });

  it('an account upgraded by the admin API gets the newest without the header, and can return', async () => {
    const { account, key } = await createAccountWithKey();
    const { token } = await created(key);
    const up = await admin().put(`/admin/accounts/${account.id}/api_version`, { api_version: '2026-12-01' });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ id: account.id, api_version: '2026-12-01' });
    expect((await api(key).get('/me')).body.api_version).toBe('2026-12-01');
    const view = await api(key).get(`/scenarios/${token}`);
    expect(view.headers.get('API-Version')).toBe('2026-12-01');
    expect(view.body.data.token).toBe(token);
    // The header still wins.
    expect((await api(key, SPEC).get(`/scenarios/${token}`)).body.data.scenario.token).toBe(token);
    const back = await admin().put(`/admin/accounts/${account.id}/api_version`, { api_version: '2026-11-21' });
    expect(back.body.api_version).toBe('2026-11-21');
    expect((await api(key).get(`/scenarios/${token}`)).body.data.status).toBe('success');
    const row = await dbOf(account.id).prepare('select api_version, previous_api_version, api_version_changed_at from accounts where id = ?').bind(account.id).first();
    expect(row).toMatchObject({ api_version: '2026-11-21', previous_api_version: '2026-12-01' });
  });

  it('refuses an unknown or malformed API-Version with 400 invalid_header naming the known versions, before anything else', async () => {
    const { key } = await createAccountWithKey();
    for (const sent of ['2026-11-22', 'latest', '', '2026-12-01x']) {
      const res = await api(key, { 'API-Version': sent }).get('/me');
      expectProblem(res, 400, 'invalid_header');
      expect(res.body.detail).toContain('2026-12-01, 2026-11-21');
      expect(res.body.errors[0].path).toBe('API-Version');
      expect(res.headers.get('API-Version')).toBe(SPEC_API_VERSION);
    }
    // Changes nothing.
    const write = await api(key, { 'API-Version': 'v2' }).post('/scenarios', { scenarioData: scenarioData() });
    expectProblem(write, 400, 'invalid_header');
    expect((await api(key).get('/scenarios')).body.data).toEqual([]);
  });

  it('admin API refuses a version it does not know (422), and an unknown account (404)', async () => {
    const { account } = await createAccountWithKey();
    expectProblem(await admin().put(`/admin/accounts/${account.id}/api_version`, { api_version: '2027-01-01' }), 422, 'validation_failed');
    expectProblem(await admin().put('/admin/accounts/999999999/api_version', { api_version: '2026-12-01' }), 404, 'not_found');
  });
});

describe('stored replies follow the request', () => {
  it('an idempotent create replayed under another version answers in the replaying request’s version', async () => {
    const { key } = await createAccountWithKey();
    const body = { scenarioData: scenarioData() };
    const idem = { 'Idempotency-Key': crypto.randomUUID() };
    const first = await api(key, { ...NEWEST, ...idem }).post('/scenarios', body);
    expect(first.status).toBe(201);
    const spec = await api(key, { ...SPEC, ...idem }).post('/scenarios', body);
    expect(spec.headers.get('Idempotent-Replayed')).toBe('true');
    expect(spec.body.data).toMatchObject({ status: 'success', message: 'Scenario created', scenario: { token: first.body.data.token } });
    expect(spec.body.data.scenario.scenario_data.token).toBe(Number(first.body.data.token));
    const again = await api(key, { ...NEWEST, ...idem }).post('/scenarios', body);
    const { chart_img: _a, ...firstData } = first.body.data;
    const { chart_img: _b, ...againData } = again.body.data;
    expect(againData).toEqual(firstData);
  });

  it('a reply stored before versions existed (the detail form) replays in either version', async () => {
    const { account, key } = await createAccountWithKey();
    const body = { scenarioData: scenarioData() };
    const idem = { 'Idempotency-Key': crypto.randomUUID() };
    const first = (await api(key, { ...NEWEST, ...idem }).post('/scenarios', body)).body.data;
    const legacy = {
      data: {
        status: 'success',
        message: 'Scenario created',
        scenario: { token: first.token, scenario_data: { ...first.scenario_data, token: Number(first.token) }, chart_img: '', created_at: first.created_at, state: { id: 36, name: 'New York' } },
      },
    };
    await dbOf(account.id).prepare('update idempotency_records set response_body = ? where account_id = ? and key = ?').bind(JSON.stringify(legacy), account.id, idem['Idempotency-Key']).run();
    const newest = (await api(key, { ...NEWEST, ...idem }).post('/scenarios', body)).body.data;
    const { chart_img: _a, ...firstData } = first;
    const { chart_img: _b, ...newestData } = newest;
    expect(newestData).toEqual(firstData);
    const spec = (await api(key, { ...SPEC, ...idem }).post('/scenarios', body)).body.data;
    expect(spec.scenario).toMatchObject({ token: first.token, created_at: first.created_at, state: { id: 36, name: 'New York' } });
  });
});

describe('API-Version on every reply', () => {
  it('errors, 304, 404/405, unauthenticated routes and the admin API', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await created(key);
    const etag = (await api(key).get(`/scenarios/${token}`)).headers.get('ETag') ?? '';
    const replies = [
      await api(key).get(`/scenarios/${token}`, { 'If-None-Match': etag }),
      await api(key).get('/scenarios/999999999999999'),
      await api(key).send('PATCH', '/me'),
      await api().get('/nowhere'),
      await api('scn_not-a-key', freshAddress()).get('/me'),
      await api().get('/api_versions'),
      await api().get(`/scenarios/${token}/chart.svg`),
      await admin().get('/admin/accounts/1/keys'),
    ];
    expect(replies.map((r) => r.status)).toEqual([304, 404, 405, 404, 401, 200, 403, 200]);
    for (const reply of replies) expect(reply.headers.get('API-Version')).toBe('2026-11-21');
    expect((await api(key, NEWEST).get('/scenarios/999999999999999')).headers.get('API-Version')).toBe('2026-12-01');
    expect((await api(undefined, NEWEST).get('/nowhere')).headers.get('API-Version')).toBe('2026-12-01');
  });

  it('is exposed to browsers (CORS) and may be sent by them', async () => {
    const res = await api().get('/api_versions');
    expect(res.headers.get('Access-Control-Expose-Headers')).toContain('API-Version');
    const preflight = await api().send('OPTIONS', '/me', { headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'api-version' } });
    expect(preflight.headers.get('Access-Control-Allow-Headers')).toContain('API-Version');
  });
});

describe('the changelog, GET /api_versions', () => {
  it('lists every version newest first, with its changes, made from the change modules', async () => {
    const res = await api().get('/api_versions');
    expect(res.status).toBe(200);
    expect(res.body.data.map((v: { version: string }) => v.version)).toEqual([...API_VERSIONS]);
    expect(res.body.data).toEqual(
      VERSIONS.map((v) => ({ version: v.version, released: v.released, summary: v.summary, changes: v.changes.map(({ title, description }) => ({ title, description })) })),
    );
    expect(res.body.data[0].changes.map((c: { title: string }) => c.title)).toEqual([
      'One scenario shape everywhere',
      'scenario_data.token is always a string',
      'endding_before is refused',
    ]);
  });

  it('is linked from /docs, which offers every version’s document', async () => {
    const page = await api().get('/docs');
    expect(page.text).toContain('href="/api_versions"');
    for (const version of API_VERSIONS) expect(page.text).toContain(`/docs?api_version=${version}`);
  });
});

describe('cost', () => {
  it('one D1 round trip for a view and a list in either version, header or pinned', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await created(key);
    for (const headers of [{}, NEWEST, SPEC]) {
      for (const path of [`/scenarios/${token}`, '/scenarios?limit=100', `/scenarios/${token}/revisions`, '/me']) {
        const d1 = faultyD1(() => undefined);
        const { status } = await sendOn(d1, key, 'GET', path, undefined, headers);
        expect({ path, headers, status, calls: d1.calls }).toEqual({ path, headers, status: 200, calls: 1 });
      }
    }
  });
});

describe('the mechanism stays in one place', () => {
  const served = new Set(routeTable().map((r) => `${r.method} ${r.path.replace(/\{([^}]+)\}/g, ':$1')}`));

  it('every operation a change names is one the app serves', () => {
    for (const version of VERSIONS) {
      for (const change of version.changes) {
        for (const operation of [...Object.keys(change.replies), ...(change.request?.operations ?? [])]) {
          expect(served.has(operation), `${change.title}: ${operation}`).toBe(true);
        }
      }
    }
  });

  it('request changes are on read operations only (a request without the header is judged after its batch)', () => {
    for (const change of VERSIONS.flatMap((v) => v.changes)) {
      for (const operation of change.request?.operations ?? []) expect(operation.startsWith('GET '), `${change.title}: ${operation}`).toBe(true);
    }
  });

  it('every change has its document parts, and its own test file', () => {
    const tests = Object.keys(import.meta.glob('./versions.change.*.test.ts'));
    const modules = Object.keys(import.meta.glob(['../src/versions/changes/*.ts', '!../src/versions/changes/*.document.ts']));
    expect(modules.length).toBe(VERSIONS.flatMap((v) => v.changes).length);
    for (const module of modules) {
      const name = module.split('/').at(-1)!.replace(/\.ts$/, '');
      expect(tests, `${module} has no test file test/versions.change.${name}.test.ts`).toContain(`./versions.change.${name}.test.ts`);
    }
    for (const change of VERSIONS.flatMap((v) => v.changes)) expect(CHANGE_DOCUMENTS.has(change), change.title).toBe(true);
  });

  it('no route or workflow reads the version: only src/versions/ names API-Version or the pinned version', () => {
    const sources = import.meta.glob<string>(['../src/**/*.ts', '!../src/versions/**'], { query: '?raw', import: 'default', eager: true });
    const readers = Object.entries(sources)
      .filter(([, text]) => /API_VERSION_HEADER|'API-Version'\)|accountApiVersion/.test(text))
      .map(([file]) => file);
    // The key's row carries it; /me shows it as the account's setting; the document route renders the version it is asked for.
    expect(readers.sort()).toEqual(['../src/app.ts', '../src/db/api-keys.ts', '../src/me/routes.ts']);
  });

  it('DEFAULT_API_VERSION is a known version', () => {
    expect(API_VERSIONS).toContain(env.DEFAULT_API_VERSION);
  });
});
