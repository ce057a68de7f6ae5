// 2026-12-01's "scenario_data.token is always a string" (src/versions/changes/string-tokens.ts):
// 2026-11-21's detail form and revisions give it as a number, the list as a string.
import { describe, expect, it } from 'vitest';
import change from '../src/versions/changes/string-tokens.ts';
import { api, createAccountWithKey, scenarioData } from './helpers/api.ts';

const NEWEST = { 'API-Version': '2026-12-01' };
const SPEC = { 'API-Version': '2026-11-21' };

describe('scenario_data.token', () => {
  it('is a string in every newest reply', async () => {
    const { key } = await createAccountWithKey();
    const created = (await api(key, NEWEST).post('/scenarios', { scenarioData: scenarioData() })).body.data;
    const token: string = created.token;
    expect(created.scenario_data.token).toBe(token);
    expect((await api(key, NEWEST).get(`/scenarios/${token}`)).body.data.scenario_data.token).toBe(token);
    expect((await api(key, NEWEST).post('/scenarios/save', { token, scenarioData: scenarioData() })).body.data.scenario_data.token).toBe(token);
    expect((await api(key, NEWEST).get(`/scenarios/${token}/revisions/1`)).body.data.scenario_data.token).toBe(token);
    const revisions = (await api(key, NEWEST).get(`/scenarios/${token}/revisions`)).body.data;
    expect(revisions.map((r: { scenario_data: { token: unknown } }) => r.scenario_data.token)).toEqual([token, token]);
    expect((await api(key, NEWEST).post(`/scenarios/${token}/revisions/1/restore`)).body.data.scenario_data.token).toBe(token);
  });

  it('2026-11-21: a number in the detail form and revisions, a string in the list and the export', async () => {
    const { key } = await createAccountWithKey();
    const created = (await api(key, SPEC).post('/scenarios', { scenarioData: scenarioData() })).body.data.scenario;
    const token: string = created.token;
    expect(created.scenario_data.token).toBe(Number(token));
    expect((await api(key, SPEC).get(`/scenarios/${token}`)).body.data.scenario.scenario_data.token).toBe(Number(token));
    expect((await api(key, SPEC).get(`/scenarios/${token}/revisions/1`)).body.data.revision.scenario_data.token).toBe(Number(token));
    expect((await api(key, SPEC).get(`/scenarios/${token}/revisions`)).body.data[0].scenario_data.token).toBe(Number(token));
    expect((await api(key, SPEC).get('/scenarios')).body.data[0].scenario_data.token).toBe(token);
    const patch = { body: { year: 2031 }, headers: { 'Content-Type': 'application/merge-patch+json' } };
    expect((await api(key, SPEC).send('PATCH', `/scenarios/${token}`, patch)).body.data.scenario.scenario_data.token).toBe(Number(token));
    expect((await api(key, NEWEST).send('PATCH', `/scenarios/${token}`, patch)).body.data.scenario_data.token).toBe(token);
    const line = JSON.parse((await api(key, SPEC).get('/scenarios/export')).text.split('\n')[0]!);
    expect(line.scenario_data.token).toBe(token);
  });

  it('declares the operations it affects; the list and the export are not among them', () => {
    expect(Object.keys(change.replies).sort()).toEqual([
      'GET /scenarios/:token',
      'GET /scenarios/:token/revisions',
      'GET /scenarios/:token/revisions/:version',
      'PATCH /scenarios/:token',
      'POST /scenarios',
      'POST /scenarios/:token/revisions/:version/restore',
      'POST /scenarios/save',
      'PUT /scenarios/save',
    ]);
    expect(change.replies['GET /scenarios/:token/revisions']?.({ data: [{ scenario_data: { token: '100000000000001' } }] })).toEqual({
      data: [{ scenario_data: { token: 100000000000001 } }],
    });
  });
});
