// Hono's typed client (`hc<AppType>`), with no code generation: the app's chained route types
// give every call its path, method, inputs and reply types. Routes build the newest API version's
// shapes, so AppType describes the newest: the client sends API-Version: 2026-12-01 (README,
// "Typed clients"). This file is type-checked with the rest
// (`npm run typecheck`), so a route whose type drops out of AppType, or a changed input or reply
// shape, fails there as well as here.
import { exports } from 'cloudflare:workers';
import { hc, type InferRequestType } from 'hono/client';
import { beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import type { AppType } from '../src/index.ts';
import { NEWEST_API_VERSION } from '../src/api-versions.ts';
import { BASE, createAccountWithKey } from './helpers/api.ts';

/** A client that reaches the Worker through its own fetch, as a deployed client reaches it over HTTP. */
function client(key: string) {
  return hc<AppType>(BASE, {
    fetch: (input: RequestInfo | URL, init?: RequestInit) => exports.default.fetch(new Request(input, init)),
    headers: { Authorization: `Bearer ${key}`, 'API-Version': NEWEST_API_VERSION },
  });
}

type ScenarioDataInput = NonNullable<InferRequestType<ReturnType<typeof client>['scenarios']['$post']>['json']['scenarioData']>;

/** One adult and one child in New York, typed by the client's own input type. */
const household: ScenarioDataInput = {
  year: 2026,
  state_id: 36,
  programs: ['snap', 'eitc'],
  adult: [
    {
      age: 34, wage_rate: '18.50', yes_or_no: 1, adult_type: 1, is_married: 0, is_veteran: 0, unemp_comp: '0', monthly_ssi: '0',
      child_support: '0', other_unearned: '0', monthly_disability: '0', soc_sec_retirement: '0', same_snap_household: 1,
      work_hours_per_week: '40', is_spouse_in_household: 0, same_legal_hh_fed_state: 1, training_hours_per_week: '0',
      aged_or_disability_income: 0,
    },
  ],
  child: [
    {
      age: 6, sex: 1, caretaker: 1, in_school: 1, yes_or_no: 1, is_disabled: 0, cc_rate_category: 2, child_care_setting: 1,
      relation_to_caretaker: 1, same_legal_hh_fed_state: 1, purchase_and_prepare_meals_together: 1,
    },
  ],
};

let key: string;
beforeEach(async () => {
  ({ key } = await createAccountWithKey());
});

describe('typed client: hc<AppType>', () => {
  it('says whose key it is', async () => {
    const res = await client(key).me.$get();
    expect(res.status).toBe(200);
    const me = await res.json();
    expectTypeOf(me).toEqualTypeOf<{ name: string; email: string; api_version: '2026-12-01' | '2026-11-21' }>();
    expect(me.email).toMatch(/@example\.com$/);
  });

  it('lists, views, restores and diffs revisions', async () => {
    const api = client(key);
    const created = await api.scenarios.$post({ json: { scenarioData: household }, header: {} });
    if (created.status !== 201) throw new Error(await created.text());
    const token = (await created.json()).data.token;
    await api.scenarios.save.$post({ json: { token, scenarioData: { ...household, year: 2027 } }, header: {} });
    const history = api.scenarios[':token'];

    const listed = await history.revisions.$get({ param: { token }, query: {} });
    if (listed.status !== 200) throw new Error(await listed.text());
    const page = await listed.json();
    expectTypeOf(page.data[0]!.version).toEqualTypeOf<number>();
    expect(page.data.map((r) => r.version)).toEqual([2, 1]);

    const one = await history.revisions[':version'].$get({ param: { token, version: '1' } });
    if (one.status !== 200) throw new Error(await one.text());
    expect((await one.json()).data.scenario_data.year).toBe(2026);

    const diff = await history.diff.$get({ param: { token }, query: { from: '1', to: '2' } });
    if (diff.status !== 200) throw new Error(await diff.text());
    expect((await diff.json()).data.patch).toEqual([{ op: 'replace', path: '/year', value: 2027 }]);

    const restored = await history.revisions[':version'].restore.$post({ param: { token, version: '1' }, header: { 'if-match': '"v2"' } });
    if (restored.status !== 200) throw new Error(await restored.text());
    expect(restored.headers.get('ETag')).toBe('"v3"');
    expect((await restored.json()).data.scenario_data.year).toBe(2026);
  });

  it('creates, lists, views, saves and deletes a scenario', async () => {
    const api = client(key);

    // Create
    const created = await api.scenarios.$post({ json: { scenarioData: household }, header: { 'idempotency-key': crypto.randomUUID() } });
    expect(created.status).toBe(201);
    if (created.status !== 201) throw new Error(await created.text());
    const createdBody = await created.json();
    const token = createdBody.data.token;
    expectTypeOf(token).toEqualTypeOf<string>();
    expectTypeOf(createdBody.data.scenario_data.token).toEqualTypeOf<string>();
    expect(created.headers.get('API-Version')).toBe('2026-12-01');
    expect(createdBody.data.version).toBe(1);
    expect(createdBody.data.scenario_data.token).toBe(token);
    expect(createdBody.data.state).toEqual({ id: 36, name: 'New York', slug: 'new-york' });
    expect(created.headers.get('Location')).toBe(`${BASE}/scenarios/${token}`);

    // List
    const listed = await api.scenarios.$get({ query: { limit: '5' } });
    expect(listed.status).toBe(200);
    if (listed.status !== 200) throw new Error(await listed.text());
    const page = await listed.json();
    expectTypeOf(page.has_more).toEqualTypeOf<boolean>();
    expectTypeOf(page.data[0]!.scenario_data.token).toEqualTypeOf<string>();
    expect(page.has_more).toBe(false);
    expect(page.data.map((item) => item.token)).toEqual([token]);
    expect(page.data[0]!.scenario_data.token).toBe(token);
    // Filters are typed query fields, and the export is a route of the client.
    const filtered = await api.scenarios.$get({ query: { state_id: '36', program: 'snap' } });
    if (filtered.status !== 200) throw new Error(await filtered.text());
    expect((await filtered.json()).data.map((item) => item.token)).toEqual([token]);
    const exported = await api.scenarios.export.$get({ query: { program: 'snap' } });
    expect(exported.headers.get('Content-Type')).toBe('application/x-ndjson; charset=utf-8');
    const line = new TextDecoder().decode(await exported.arrayBuffer());
    expect(JSON.parse(line).token).toBe(token);

    // View, then a conditional view of the same version
    const viewed = await api.scenarios[':token'].$get({ param: { token }, header: {} });
    expect(viewed.status).toBe(200);
    if (viewed.status !== 200) throw new Error(await viewed.text());
    const etag = viewed.headers.get('ETag') ?? '';
    expect(etag).toBe('"v1"');
    const view = await viewed.json();
    expect(view.data.token).toBe(token);
    expect(view.data.scenario_data.programs).toEqual(['snap', 'eitc']);
    const notModified = await api.scenarios[':token'].$get({ param: { token }, header: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);

    // Save (POST, conditional on the version just read), then save again (PUT)
    const saved = await api.scenarios.save.$post({
      json: { token, scenarioData: { ...household, programs: ['snap'] } },
      header: { 'if-match': etag },
    });
    expect(saved.status).toBe(200);
    if (saved.status !== 200) throw new Error(await saved.text());
    const savedBody = await saved.json();
    expect(savedBody.data.version).toBe(2);
    expect(savedBody.data.scenario_data.programs).toEqual(['snap']);
    expect(saved.headers.get('ETag')).toBe('"v2"');

    const stale = await api.scenarios.save.$put({ json: { token, scenarioData: household }, header: { 'if-match': etag } });
    expect(stale.status).toBe(412);
    const put = await api.scenarios.save.$put({ json: { token: Number(token), scenario_data: household }, header: {} });
    expect(put.status).toBe(200);
    if (put.status !== 200) throw new Error(await put.text());
    expect((await put.json()).data.scenario_data.programs).toEqual(['snap', 'eitc']);

    // Delete; the scenario is gone
    const deleted = await api.scenarios[':token'].delete.$delete({ param: { token } });
    expect(deleted.status).toBe(200);
    if (deleted.status !== 200) throw new Error(await deleted.text());
    const deletedBody = await deleted.json();
    expectTypeOf(deletedBody).toEqualTypeOf<{ data: { token: string; deleted: true } }>();
    expect(deletedBody).toEqual({ data: { token, deleted: true } });

    const gone = await api.scenarios[':token'].$get({ param: { token }, header: {} });
    expect(gone.status).toBe(404);
    expect(gone.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
    const again = await api.scenarios[':token'].$delete({ param: { token } });
    expect(again.status).toBe(404);
  });

  it('patches a scenario, and shares it: create, list, open, revoke', async () => {
    const api = client(key);
    const created = await api.scenarios.$post({ json: { scenarioData: household }, header: {} });
    if (created.status !== 201) throw new Error(await created.text());
    const token = (await created.json()).data.token;

    // A patch's body is a merge patch or a JSON Patch, sent as such (the client's body is JSON).
    const patched = await api.scenarios[':token'].$patch(
      { param: { token }, header: { 'if-match': '"v1"' } },
      {
        init: {
          body: JSON.stringify({ year: 2027 }),
          headers: { Authorization: `Bearer ${key}`, 'API-Version': NEWEST_API_VERSION, 'Content-Type': 'application/merge-patch+json', 'If-Match': '"v1"' },
        },
      },
    );
    if (patched.status !== 200) throw new Error(await patched.text());
    const patchedBody = await patched.json();
    expectTypeOf(patchedBody.data.scenario_data.year).toEqualTypeOf<number>();
    expect(patchedBody.data.scenario_data).toMatchObject({ year: 2027, programs: ['snap', 'eitc'] });
    expect(patched.headers.get('ETag')).toBe('"v2"');

    const links = api.scenarios[':token'].share_links;
    const shared = await links.$post({ param: { token }, json: { expires_in: 3600 } });
    if (shared.status !== 201) throw new Error(await shared.text());
    const link = await shared.json();
    expectTypeOf(link.url).toEqualTypeOf<string>();
    const secret = link.url.split('/').at(-1)!;
    const opened = await api.shared[':secret'].$get({ param: { secret } }, { headers: { Accept: 'application/json' } });
    if (opened.status !== 200) throw new Error(await opened.text());
    // The route answers a page or JSON: the JSON form, asked for with Accept.
    const sharedBody = await opened.json();
    if (typeof sharedBody !== 'object' || !('data' in sharedBody)) throw new Error('expected the JSON form');
    expect(sharedBody.data.scenario_data.year).toBe(2027);

    const listed = await links.$get({ param: { token } });
    if (listed.status !== 200) throw new Error(await listed.text());
    expect((await listed.json()).data[0]).toMatchObject({ id: link.id, views: 1 });
    const revoked = await links[':id'].$delete({ param: { token, id: link.id } });
    if (revoked.status !== 200) throw new Error(await revoked.text());
    expect((await revoked.json()).revoked_at).not.toBeNull();
    expect((await api.shared[':secret'].$get({ param: { secret } })).status).toBe(404);
  });

  it('builds URLs for the routes, too', () => {
    const api = client(key);
    expect(api.scenarios[':token'].delete.$url({ param: { token: '482913075561204' } }).href).toBe(`${BASE}/scenarios/482913075561204/delete`);
    expect(api.scenarios.save.$url().pathname).toBe('/scenarios/save');
  });
});
