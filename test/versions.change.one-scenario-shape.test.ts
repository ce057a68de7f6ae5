// 2026-12-01's "One scenario shape everywhere" (src/versions/changes/one-scenario-shape.ts): the
// newest answers view, create, save, restore with {data: <scenario>}, a revision with
// {data: <revision>}, a delete with {data: {token, deleted: true}}; 2026-11-21 keeps the
// specification's wrappers. Every reply here is also checked against its version's document.
import { describe, expect, it } from 'vitest';
import change from '../src/versions/changes/one-scenario-shape.ts';
import { api, createAccountWithKey, scenarioData } from './helpers/api.ts';
import { TIMESTAMP } from './helpers/contract.ts';

const NEWEST = { 'API-Version': '2026-12-01' };
const SPEC = { 'API-Version': '2026-11-21' };
const LIST_ITEM_KEYS = ['created_at', 'expired', 'id', 'scenario_data', 'state', 'token', 'updated_at', 'user_id', 'version'];

describe('one scenario shape everywhere', () => {
  it('newest: view, create, save and restore answer the list item plus chart_img', async () => {
    const { account, key } = await createAccountWithKey();
    const create = await api(key, NEWEST).post('/scenarios', { scenarioData: scenarioData() });
    expect(create.status).toBe(201);
    const scenario = create.body.data;
    expect(Object.keys(scenario).sort()).toEqual([...LIST_ITEM_KEYS, 'chart_img'].sort());
    expect(scenario).toMatchObject({ user_id: account.id, version: 1, expired: null, state: { id: 36, name: 'New York', slug: 'new-york' } });
    expect(scenario.created_at).toMatch(TIMESTAMP);
    expect(scenario.updated_at).toBe(scenario.created_at);

    const listed = (await api(key, NEWEST).get('/scenarios')).body.data[0];
    const view = (await api(key, NEWEST).get(`/scenarios/${scenario.token}`)).body;
    const { chart_img: chart, ...item } = view.data;
    expect(item).toEqual(listed);
    expect(chart).toContain(`/scenarios/${scenario.token}/chart.svg`);

    const saved = await api(key, NEWEST).post('/scenarios/save', { token: scenario.token, scenarioData: scenarioData({ year: 2027 }) });
    expect(saved.body.data).toMatchObject({ id: scenario.id, token: scenario.token, version: 2 });
    expect(saved.body.data.scenario_data.year).toBe(2027);
    const put = await api(key, NEWEST).put('/scenarios/save', { token: scenario.token, scenarioData: scenarioData({ year: 2028 }) });
    expect(put.body.data.version).toBe(3);
    const restored = await api(key, NEWEST).post(`/scenarios/${scenario.token}/revisions/1/restore`);
    expect(restored.body.data).toMatchObject({ id: scenario.id, version: 4 });
    expect(restored.body.data.scenario_data.year).toBe(2026);
  });

  it('newest: a revision is {data: <revision>}, a delete {data: {token, deleted: true}}', async () => {
    const { key } = await createAccountWithKey();
    const { token } = (await api(key, NEWEST).post('/scenarios', { scenarioData: scenarioData() })).body.data;
    const revision = await api(key, NEWEST).get(`/scenarios/${token}/revisions/1`);
    expect(Object.keys(revision.body.data).sort()).toEqual(['created_at', 'scenario_data', 'state', 'version']);
    expect((await api(key, NEWEST).delete(`/scenarios/${token}`)).body).toEqual({ data: { token, deleted: true } });
    const other = (await api(key, NEWEST).post('/scenarios', { scenarioData: scenarioData() })).body.data.token;
    expect((await api(key, NEWEST).delete(`/scenarios/${other}/delete`)).body).toEqual({ data: { token: other, deleted: true } });
  });

  it('2026-11-21: the same requests answer the specification’s forms, with the same data', async () => {
    const { key } = await createAccountWithKey();
    const create = await api(key, SPEC).post('/scenarios', { scenarioData: scenarioData() });
    const { data } = create.body;
    expect(Object.keys(data)).toEqual(['status', 'message', 'scenario']);
    expect(data).toMatchObject({ status: 'success', message: 'Scenario created' });
    expect(Object.keys(data.scenario)).toEqual(['token', 'scenario_data', 'chart_img', 'created_at', 'state']);
    const token = data.scenario.token;
    const newest = (await api(key, NEWEST).get(`/scenarios/${token}`)).body.data;
    expect(data.scenario.state).toEqual({ id: newest.state.id, name: newest.state.name });
    expect(data.scenario.created_at).toBe(newest.created_at);
    expect((await api(key, SPEC).get(`/scenarios/${token}`)).body.data.message).toBe('Scenario found');
    expect((await api(key, SPEC).post('/scenarios/save', { token, scenarioData: scenarioData() })).body.data.message).toBe('Scenario saved');
    expect((await api(key, SPEC).put('/scenarios/save', { token, scenarioData: scenarioData() })).body.data.message).toBe('Scenario saved');
    const patched = await api(key, SPEC).send('PATCH', `/scenarios/${token}`, { body: { year: 2031 }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(patched.body.data).toMatchObject({ status: 'success', message: 'Scenario saved', scenario: { token, scenario_data: { year: 2031 } } });
    const patchedNewest = await api(key, NEWEST).send('PATCH', `/scenarios/${token}`, { body: { year: 2032 }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(patchedNewest.body.data).toMatchObject({ token, version: 5, scenario_data: { year: 2032 } });
    expect((await api(key, SPEC).post(`/scenarios/${token}/revisions/1/restore`)).body.data.message).toBe('Scenario restored');
    const revision = (await api(key, SPEC).get(`/scenarios/${token}/revisions/1`)).body.data;
    expect(revision).toMatchObject({ status: 'success', message: 'Revision found', revision: { version: 1 } });
    expect((await api(key, SPEC).delete(`/scenarios/${token}`)).body).toEqual({ data: { status: 'success', message: 'Scenario deleted' } });
  });

  it('declares the operations it affects, each turned back by its transform', () => {
    const scenario = { id: 1, user_id: 2, state: { id: 36, name: 'New York', slug: 'new-york' }, token: '482913075561204', expired: null, created_at: 'c', updated_at: 'u', version: 3, scenario_data: { token: 482913075561204 }, chart_img: 'x' };
    expect(change.replies['GET /scenarios/:token']?.({ data: scenario })).toEqual({
      data: { status: 'success', message: 'Scenario found', scenario: { token: scenario.token, scenario_data: scenario.scenario_data, chart_img: 'x', created_at: 'c', state: { id: 36, name: 'New York' } } },
    });
    expect(change.replies['DELETE /scenarios/:token']?.({ data: { token: scenario.token, deleted: true } })).toEqual({ data: { status: 'success', message: 'Scenario deleted' } });
    expect(Object.keys(change.replies).sort()).toEqual([
      'DELETE /scenarios/:token',
      'DELETE /scenarios/:token/delete',
      'GET /scenarios/:token',
      'GET /scenarios/:token/revisions/:version',
      'PATCH /scenarios/:token',
      'POST /scenarios',
      'POST /scenarios/:token/revisions/:version/restore',
      'POST /scenarios/save',
      'PUT /scenarios/save',
    ]);
    expect(change.request).toBeUndefined();
  });
});
