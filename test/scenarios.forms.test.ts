// The two response forms of a scenario (list item and detail) field by field and type by type, as the
// spec and docs/decisions.md give them, and the create / view / save / delete exchanges around them:
// status codes, Location, ETag and conditional requests, and the headers every reply carries.
import { beforeEach, describe, expect, it } from 'vitest';
import { adult, api, BASE, child, createAccountWithKey, createScenario, scenarioData } from './helpers/api.ts';
import { expectProblem, TIMESTAMP, TOKEN } from './helpers/scenarios.ts';

const ADULT_FIELDS = [
  'id', 'age', 'nickname', 'wage_rate', 'yes_or_no', 'adult_type', 'is_married', 'is_veteran', 'unemp_comp', 'is_pregnant',
  'monthly_ssi', 'child_support', 'other_unearned', 'monthly_disability', 'soc_sec_retirement', 'same_snap_household',
  'work_hours_per_week', 'is_spouse_in_household', 'same_legal_hh_fed_state', 'training_hours_per_week', 'aged_or_disability_income',
];
const CHILD_FIELDS = [
  'id', 'age', 'sex', 'caretaker', 'in_school', 'yes_or_no', 'is_disabled', 'cc_rate_category', 'ssi_income_amount',
  'child_care_setting', 'relation_to_caretaker', 'same_legal_hh_fed_state', 'purchase_and_prepare_meals_together',
];
const ADULT_STRINGS = ['wage_rate', 'unemp_comp', 'monthly_ssi', 'child_support', 'other_unearned', 'monthly_disability', 'soc_sec_retirement', 'work_hours_per_week', 'training_hours_per_week', 'nickname'];
const CHILD_STRINGS = ['ssi_income_amount'];
const DATA_FIELDS = ['year', 'adult', 'child', 'state', 'token', 'programs', 'sub_division'];

const sorted = (keys: string[]) => [...keys].sort();
const keysOf = (value: object) => Object.keys(value).sort();

/** Every field of the spec's Adult or Child table has the spec's type: strings where it says so, else integers. */
function expectMemberTypes(member: Record<string, unknown>, fields: string[], strings: string[]) {
  expect(keysOf(member)).toEqual(sorted(fields));
  for (const field of fields) {
    if (strings.includes(field)) expect(typeof member[field], field).toBe('string');
    else expect(Number.isInteger(member[field]), field).toBe(true);
  }
}

let key: string;
let accountId: number;
beforeEach(async () => {
  const created = await createAccountWithKey();
  key = created.key;
  accountId = created.account.id;
});

async function listItem(token: string) {
  const res = await api(key).get('/scenarios');
  expect(res.status).toBe(200);
  return res.body.data.find((s: any) => s.token === token);
}

describe('list item form', () => {
  it('has exactly the fields of the spec, and updated_at and version (docs/decisions.md, "Finding and exporting scenarios")', async () => {
    const { token } = await createScenario(key);
    expect(keysOf(await listItem(token))).toEqual(sorted(['id', 'user_id', 'state', 'token', 'expired', 'created_at', 'updated_at', 'version', 'scenario_data']));
  });

  it('types each field as the spec says', async () => {
    const { token } = await createScenario(key);
    const item = await listItem(token);
    expect(Number.isInteger(item.id)).toBe(true);
    expect(item.id).toBeGreaterThan(0);
    expect(item.user_id).toBe(accountId);
    expect(item.state).toEqual({ id: 36, name: 'New York', slug: 'new-york' });
    expect(item.token).toBe(token);
    expect(item.token).toMatch(TOKEN);
    expect(item.expired).toBeNull();
    expect(item.created_at).toMatch(TIMESTAMP);
  });

  it('repeats the token as a string in scenario_data', async () => {
    const { token } = await createScenario(key);
    const data = (await listItem(token)).scenario_data;
    expect(data.token).toBe(token);
    expect(typeof data.token).toBe('string');
  });

  it('holds exactly the scenario_data fields of the spec, state equal to state.id', async () => {
    const { token } = await createScenario(key, scenarioData({ state_id: 6 }));
    const item = await listItem(token);
    expect(keysOf(item.scenario_data)).toEqual(sorted(DATA_FIELDS));
    expect(item.scenario_data.state).toBe(6);
    expect(item.state).toEqual({ id: 6, name: 'California', slug: 'california' });
    expect(item.scenario_data).toMatchObject({ year: 2026, programs: ['snap', 'eitc', 'ctc'], sub_division: 5 });
  });

  it('types every adult and child field as the spec tables say', async () => {
    const { token } = await createScenario(key, scenarioData({ adult: [adult({ wage_rate: 20 })], child: [child({ ssi_income_amount: 0 })] }));
    const data = (await listItem(token)).scenario_data;
    expectMemberTypes(data.adult[0], ADULT_FIELDS, ADULT_STRINGS);
    expectMemberTypes(data.child[0], CHILD_FIELDS, CHILD_STRINGS);
  });

  it('shows the slug of a multi-word state', async () => {
    const { token } = await createScenario(key, scenarioData({ state_id: 11 }));
    expect((await listItem(token)).state).toEqual({ id: 11, name: 'District of Columbia', slug: 'district-of-columbia' });
  });
});

describe('detail form', () => {
  it('has exactly data.{status,message,scenario} and the scenario fields of the spec', async () => {
    const { token } = await createScenario(key);
    const res = await api(key).get(`/scenarios/${token}`);
    expect(keysOf(res.body)).toEqual(['data']);
    expect(keysOf(res.body.data)).toEqual(['message', 'scenario', 'status']);
    expect(keysOf(res.body.data.scenario)).toEqual(sorted(['token', 'scenario_data', 'chart_img', 'created_at', 'state']));
  });

  it('says success and Scenario found on a view', async () => {
    const { token } = await createScenario(key);
    const { data } = (await api(key).get(`/scenarios/${token}`)).body;
    expect([data.status, data.message]).toEqual(['success', 'Scenario found']);
  });

  it('gives state as {id, name} with no slug', async () => {
    const { token } = await createScenario(key);
    expect((await api(key).get(`/scenarios/${token}`)).body.data.scenario.state).toEqual({ id: 36, name: 'New York' });
  });

  it('repeats the token as a number equal to the token in scenario_data', async () => {
    const { token } = await createScenario(key);
    const scenario = (await api(key).get(`/scenarios/${token}`)).body.data.scenario;
    expect(scenario.token).toBe(token);
    expect(typeof scenario.scenario_data.token).toBe('number');
    expect(scenario.scenario_data.token).toBe(Number(token));
    expect(String(scenario.scenario_data.token)).toBe(token);
  });

  it('holds the same scenario_data as the list item, but for the token type', async () => {
    const { token } = await createScenario(key);
    const detail = (await api(key).get(`/scenarios/${token}`)).body.data.scenario;
    const item = await listItem(token);
    expect(keysOf(detail.scenario_data)).toEqual(sorted(DATA_FIELDS));
    expect({ ...detail.scenario_data, token }).toEqual(item.scenario_data);
    expect(detail.created_at).toBe(item.created_at);
  });

  it('types every adult and child field as the spec tables say', async () => {
    const { token } = await createScenario(key);
    const data = (await api(key).get(`/scenarios/${token}`)).body.data.scenario.scenario_data;
    expectMemberTypes(data.adult[1], ADULT_FIELDS, ADULT_STRINGS);
    expectMemberTypes(data.child[1], CHILD_FIELDS, CHILD_STRINGS);
  });

  it('gives created_at with microseconds and Z', async () => {
    const { token } = await createScenario(key);
    expect((await api(key).get(`/scenarios/${token}`)).body.data.scenario.created_at).toMatch(TIMESTAMP);
  });

  it('gives chart_img as an absolute, signed, expiring URL of /scenarios/<token>/chart.svg', async () => {
    const { token } = await createScenario(key);
    const chart = new URL((await api(key).get(`/scenarios/${token}`)).body.data.scenario.chart_img);
    expect(chart.origin).toBe(BASE);
    expect(chart.pathname).toBe(`/scenarios/${token}/chart.svg`);
    expect([...chart.searchParams.keys()].sort()).toEqual(['exp', 'sig']);
    expect(chart.searchParams.get('exp')).toMatch(/^\d+$/);
    expect(Number(chart.searchParams.get('exp'))).toBeGreaterThan(Date.now() / 1000);
    expect(chart.searchParams.get('sig')!.length).toBeGreaterThan(0);
  });

  it('serves the chart at chart_img without the API key', async () => {
    const { token } = await createScenario(key);
    const chart = new URL((await api(key).get(`/scenarios/${token}`)).body.data.scenario.chart_img);
    const res = await api().get(chart.pathname + chart.search);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^image\/svg\+xml/);
  });
});

describe('create', () => {
  it('answers 201 with the detail form and message Scenario created', async () => {
    const res = await api(key).post('/scenarios', { scenarioData: scenarioData() });
    expect(res.status).toBe(201);
    expect(keysOf(res.body)).toEqual(['data']);
    expect(keysOf(res.body.data.scenario)).toEqual(sorted(['token', 'scenario_data', 'chart_img', 'created_at', 'state']));
    expect([res.body.data.status, res.body.data.message]).toEqual(['success', 'Scenario created']);
    expect(res.body.data.scenario.token).toMatch(TOKEN);
    expect(res.body.data.scenario.scenario_data.token).toBe(Number(res.body.data.scenario.token));
    expect(res.body.data.scenario.state).toEqual({ id: 36, name: 'New York' });
  });

  it('gives a Location header with the absolute URL of the new scenario', async () => {
    const res = await api(key).post('/scenarios', { scenarioData: scenarioData() });
    const token = res.body.data.scenario.token;
    expect(res.headers.get('Location')).toBe(`${BASE}/scenarios/${token}`);
    const view = await api(key).get(new URL(res.headers.get('Location')!).pathname);
    expect(view.status).toBe(200);
    expect(view.body.data.scenario.token).toBe(token);
  });

  it('gives an ETag equal to the one a view then gives', async () => {
    const res = await api(key).post('/scenarios', { scenarioData: scenarioData() });
    expect(res.headers.get('ETag')).toBeTruthy();
    const view = await api(key).get(`/scenarios/${res.body.data.scenario.token}`);
    expect(view.headers.get('ETag')).toBe(res.headers.get('ETag'));
  });

  it('answers the same data the view then gives', async () => {
    const res = await api(key).post('/scenarios', { scenarioData: scenarioData() });
    const created = res.body.data.scenario;
    const view = (await api(key).get(`/scenarios/${created.token}`)).body.data.scenario;
    expect(view.scenario_data).toEqual(created.scenario_data);
    expect(view.created_at).toBe(created.created_at);
  });

  it('generates a different token for each scenario', async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 5; i++) tokens.add((await createScenario(key)).token);
    expect(tokens.size).toBe(5);
  });
});

describe('view and conditional requests', () => {
  it('gives an ETag', async () => {
    const { token } = await createScenario(key);
    const res = await api(key).get(`/scenarios/${token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('ETag')).toMatch(/^(W\/)?".+"$/);
  });

  it('answers 304 with no body to If-None-Match of the current ETag', async () => {
    const { token } = await createScenario(key);
    const etag = (await api(key).get(`/scenarios/${token}`)).headers.get('ETag')!;
    const res = await api(key).get(`/scenarios/${token}`, { 'If-None-Match': etag });
    expect(res.status).toBe(304);
    expect(res.text).toBe('');
    expect(res.headers.get('ETag')).toBe(etag);
  });

  it('answers 304 to a weak form of the current ETag and to one in a list', async () => {
    const { token } = await createScenario(key);
    const etag = (await api(key).get(`/scenarios/${token}`)).headers.get('ETag')!;
    expect((await api(key).get(`/scenarios/${token}`, { 'If-None-Match': `W/${etag}` })).status).toBe(304);
    expect((await api(key).get(`/scenarios/${token}`, { 'If-None-Match': `"other", ${etag}` })).status).toBe(304);
  });

  it('answers 200 to If-None-Match of another ETag', async () => {
    const { token } = await createScenario(key);
    const res = await api(key).get(`/scenarios/${token}`, { 'If-None-Match': '"some-other-etag"' });
    expect(res.status).toBe(200);
    expect(res.body.data.scenario.token).toBe(token);
  });

  it('answers 200 to the ETag of before a save', async () => {
    const { token } = await createScenario(key);
    const old = (await api(key).get(`/scenarios/${token}`)).headers.get('ETag')!;
    await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2020 }) });
    const res = await api(key).get(`/scenarios/${token}`, { 'If-None-Match': old });
    expect(res.status).toBe(200);
    expect(res.body.data.scenario.scenario_data.year).toBe(2020);
  });

  it('answers 404 not_found for an unknown token', async () => {
    expectProblem(await api(key).get('/scenarios/123456789012345'), 404, 'not_found');
  });

  it("answers 404 for another account's token, with the same body as an unknown one", async () => {
    const other = await createAccountWithKey();
    const { token } = await createScenario(other.key);
    const foreign = await api(key).get(`/scenarios/${token}`);
    const unknown = await api(key).get('/scenarios/123456789012345');
    expectProblem(foreign, 404, 'not_found');
    expect({ ...foreign.body, request_id: '' }).toEqual({ ...unknown.body, request_id: '' });
  });
});

describe('save', () => {
  it('answers 200, Scenario saved, with the new data in the detail form', async () => {
    const { token } = await createScenario(key);
    const res = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2021, programs: ['wic'] }) });
    expect(res.status).toBe(200);
    expect([res.body.data.status, res.body.data.message]).toEqual(['success', 'Scenario saved']);
    expect(keysOf(res.body.data.scenario)).toEqual(sorted(['token', 'scenario_data', 'chart_img', 'created_at', 'state']));
    expect(res.body.data.scenario.scenario_data).toMatchObject({ year: 2021, programs: ['wic'], token: Number(token) });
    const view = (await api(key).get(`/scenarios/${token}`)).body.data.scenario;
    expect(view.scenario_data).toEqual(res.body.data.scenario.scenario_data);
  });

  it('keeps the token, id and created_at, and moves the scenario to a new state', async () => {
    const { token, created_at } = await createScenario(key);
    const before = await listItem(token);
    const res = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ state_id: 48 }) });
    expect(res.body.data.scenario.state).toEqual({ id: 48, name: 'Texas' });
    const after = await listItem(token);
    expect([after.id, after.token, after.created_at]).toEqual([before.id, token, created_at]);
    expect(after.state).toEqual({ id: 48, name: 'Texas', slug: 'texas' });
    expect(after.scenario_data.state).toBe(48);
  });

  it('replaces the data rather than merging it', async () => {
    const { token } = await createScenario(key);
    await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ child: [], sub_division: undefined, adult: [adult()] }) });
    const data = (await listItem(token)).scenario_data;
    expect(data.child).toEqual([]);
    expect(data.adult).toHaveLength(1);
    expect(data).not.toHaveProperty('sub_division');
  });

  it('answers with a new ETag when If-Match is current', async () => {
    const { token } = await createScenario(key);
    const etag = (await api(key).get(`/scenarios/${token}`)).headers.get('ETag')!;
    const res = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2022 }) }, { 'If-Match': etag });
    expect(res.status).toBe(200);
    expect(res.headers.get('ETag')).toBeTruthy();
    expect(res.headers.get('ETag')).not.toBe(etag);
    expect((await api(key).get(`/scenarios/${token}`)).headers.get('ETag')).toBe(res.headers.get('ETag'));
  });

  it('answers 412 to a stale If-Match and leaves the data unchanged', async () => {
    const { token } = await createScenario(key);
    const stale = (await api(key).get(`/scenarios/${token}`)).headers.get('ETag')!;
    await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2023 }) });
    const before = await api(key).get(`/scenarios/${token}`);
    const res = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 1999 }) }, { 'If-Match': stale });
    expectProblem(res, 412, 'precondition_failed');
    const after = await api(key).get(`/scenarios/${token}`);
    expect(after.body.data.scenario.scenario_data).toEqual(before.body.data.scenario.scenario_data);
    expect(after.body.data.scenario.scenario_data.year).toBe(2023);
    expect(after.headers.get('ETag')).toBe(before.headers.get('ETag'));
  });

  it('lets only the first of two saves with the same If-Match through', async () => {
    const { token } = await createScenario(key);
    const etag = (await api(key).get(`/scenarios/${token}`)).headers.get('ETag')!;
    const first = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2010 }) }, { 'If-Match': etag });
    const second = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2011 }) }, { 'If-Match': etag });
    expect([first.status, second.status]).toEqual([200, 412]);
    expect((await listItem(token)).scenario_data.year).toBe(2010);
  });

  it('saves with If-Match: * while the scenario exists', async () => {
    const { token } = await createScenario(key);
    const res = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2014 }) }, { 'If-Match': '*' });
    expect(res.status).toBe(200);
    expectProblem(await api(key).post('/scenarios/save', { token: '123456789012345', scenarioData: scenarioData() }, { 'If-Match': '*' }), 404, 'not_found');
  });

  it('never matches a weak ETag in If-Match', async () => {
    const { token } = await createScenario(key);
    const etag = (await api(key).get(`/scenarios/${token}`)).headers.get('ETag')!;
    const res = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2014 }) }, { 'If-Match': `W/${etag}` });
    expectProblem(res, 412, 'precondition_failed');
    expect((await listItem(token)).scenario_data.year).toBe(2026);
  });

  it('lets the last write win without If-Match', async () => {
    const { token } = await createScenario(key);
    expect((await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2012 }) })).status).toBe(200);
    expect((await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2013 }) })).status).toBe(200);
    expect((await listItem(token)).scenario_data.year).toBe(2013);
  });

  it('answers 404 not_found for an unknown token', async () => {
    const res = await api(key).post('/scenarios/save', { token: '123456789012345', scenarioData: scenarioData() });
    expectProblem(res, 404, 'not_found');
    expect((await api(key).get('/scenarios')).body.data).toEqual([]);
  });

  it("answers 404 for another account's token and leaves it unchanged", async () => {
    const other = await createAccountWithKey();
    const { token } = await createScenario(other.key);
    expectProblem(await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 1995 }) }), 404, 'not_found');
    expect((await api(other.key).get(`/scenarios/${token}`)).body.data.scenario.scenario_data.year).toBe(2026);
  });

  it('works through PUT /scenarios/save like POST', async () => {
    const { token } = await createScenario(key);
    const etag = (await api(key).get(`/scenarios/${token}`)).headers.get('ETag')!;
    const res = await api(key).put('/scenarios/save', { token, scenarioData: scenarioData({ year: 2015 }) }, { 'If-Match': etag });
    expect(res.status).toBe(200);
    expect(res.body.data.message).toBe('Scenario saved');
    expect(res.headers.get('ETag')).not.toBe(etag);
    expect((await listItem(token)).scenario_data.year).toBe(2015);
    expectProblem(await api(key).put('/scenarios/save', { token, scenarioData: scenarioData() }, { 'If-Match': etag }), 412, 'precondition_failed');
    expectProblem(await api(key).put('/scenarios/save', { token: '123456789012345', scenarioData: scenarioData() }), 404, 'not_found');
  });
});

describe('delete', () => {
  it.each(['/delete', ''])('DELETE /scenarios/{token}%s answers 200 Scenario deleted, then view and a second delete 404', async (suffix) => {
    const { token } = await createScenario(key);
    const res = await api(key).delete(`/scenarios/${token}${suffix}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { status: 'success', message: 'Scenario deleted' } });
    expectProblem(await api(key).get(`/scenarios/${token}`), 404, 'not_found');
    expectProblem(await api(key).delete(`/scenarios/${token}${suffix}`), 404, 'not_found');
  });

  it('removes the scenario from the list and leaves the others', async () => {
    const kept = await createScenario(key);
    const { token } = await createScenario(key);
    await api(key).delete(`/scenarios/${token}/delete`);
    expect((await api(key).get('/scenarios')).body.data.map((s: any) => s.token)).toEqual([kept.token]);
  });

  it('makes a save of the deleted token 404', async () => {
    const { token } = await createScenario(key);
    await api(key).delete(`/scenarios/${token}`);
    expectProblem(await api(key).post('/scenarios/save', { token, scenarioData: scenarioData() }), 404, 'not_found');
  });

  it("answers 404 for another account's token and leaves it in place", async () => {
    const other = await createAccountWithKey();
    const { token } = await createScenario(other.key);
    expectProblem(await api(key).delete(`/scenarios/${token}/delete`), 404, 'not_found');
    expectProblem(await api(key).delete(`/scenarios/${token}`), 404, 'not_found');
    expect((await api(other.key).get(`/scenarios/${token}`)).status).toBe(200);
  });

  it('answers 404 for an unknown token', async () => {
    expectProblem(await api(key).delete('/scenarios/123456789012345/delete'), 404, 'not_found');
  });
});

describe('headers', () => {
  async function replies() {
    const created = await api(key).post('/scenarios', { scenarioData: scenarioData() });
    const token = created.body.data.scenario.token;
    return {
      create: created,
      list: await api(key).get('/scenarios'),
      view: await api(key).get(`/scenarios/${token}`),
      save: await api(key).post('/scenarios/save', { token, scenarioData: scenarioData() }),
      put: await api(key).put('/scenarios/save', { token, scenarioData: scenarioData() }),
      delete: await api(key).delete(`/scenarios/${token}/delete`),
    };
  }

  it('sends Content-Type application/json; charset=utf-8', async () => {
    for (const [name, res] of Object.entries(await replies())) {
      expect(res.headers.get('Content-Type')?.toLowerCase().replace(/\s+/g, ''), name).toBe('application/json;charset=utf-8');
    }
  });

  it('sends Cache-Control no-store', async () => {
    for (const [name, res] of Object.entries(await replies())) expect(res.headers.get('Cache-Control'), name).toBe('no-store');
  });

  it('sends X-Request-Id, a different one per request', async () => {
    const ids = Object.entries(await replies()).map(([name, res]) => {
      expect(res.headers.get('X-Request-Id'), name).toBeTruthy();
      return res.headers.get('X-Request-Id');
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sends X-Request-Id and Cache-Control no-store on errors too, matching the body request_id', async () => {
    const res = await api(key).get('/scenarios/123456789012345');
    expect(res.headers.get('X-Request-Id')).toBe(res.body.request_id);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
  });

  it('reuses cf-ray as the request id when present', async () => {
    const res = await api(key).get('/scenarios', { 'cf-ray': '8a1b2c3d4e5f6789-IAD' });
    expect(res.headers.get('X-Request-Id')).toBe('8a1b2c3d4e5f6789-IAD');
  });

  it('sends an ETag on view, create and save but Cache-Control no-store all the same', async () => {
    const { create, view, save } = await replies();
    for (const res of [create, view, save]) {
      expect(res.headers.get('ETag')).toBeTruthy();
      expect(res.headers.get('Cache-Control')).toBe('no-store');
    }
  });
});

describe('stored members', () => {
  const reversed = (member: Record<string, unknown>) => Object.fromEntries(Object.entries(member).reverse());
  const without = (member: Record<string, unknown>, ...names: string[]) => Object.fromEntries(Object.entries(member).filter(([name]) => !names.includes(name)));

  it("keep the spec's field order, id first, in whatever order the client sent the fields", async () => {
    const data = scenarioData({ adult: [reversed(adult({ wage_rate: 18.5 }))], child: [reversed(child({ ssi_income_amount: 12 }))] });
    const { token, scenario_data: created } = await createScenario(key, data);
    const viewed = (await api(key).get(`/scenarios/${token}`)).body.data.scenario.scenario_data;
    for (const stored of [created, viewed]) {
      expect(Object.keys(stored.adult[0])).toEqual(ADULT_FIELDS);
      expect(Object.keys(stored.child[0])).toEqual(CHILD_FIELDS);
      expect([stored.adult[0].id, stored.adult[0].wage_rate, stored.child[0].id, stored.child[0].ssi_income_amount]).toEqual([1, '18.5', 1, '12']);
    }
  });

  it('leave out the optional fields the client left out', async () => {
    const data = scenarioData({ adult: [without(adult(), 'nickname', 'is_pregnant')], child: [without(child(), 'ssi_income_amount')] });
    const { token } = await createScenario(key, data);
    const stored = (await api(key).get(`/scenarios/${token}`)).body.data.scenario.scenario_data;
    expect(Object.keys(stored.adult[0])).toEqual(ADULT_FIELDS.filter((name) => name !== 'nickname' && name !== 'is_pregnant'));
    expect(Object.keys(stored.child[0])).toEqual(CHILD_FIELDS.filter((name) => name !== 'ssi_income_amount'));
  });
});
