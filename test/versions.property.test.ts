// A property of API versions: for random valid scenarios, every reply carries the same data in
// 2026-11-21 as in 2026-12-01, only shaped differently (docs/decisions.md, "API versions"). Each
// scenario is created under one version (drawn) and read back, saved, listed, its revision viewed
// and deleted under both; each pair of replies is mapped to one neutral form and compared.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { api, createAccountWithKey } from './helpers/api.ts';
import { reportable, validScenarioData } from './helpers/fuzz.ts';

const NEWEST = { 'API-Version': '2026-12-01' };
const SPEC = { 'API-Version': '2026-11-21' };

/** What a 2026-12-01 scenario reply says that 2026-11-21's also says (chart_img's signature differs per request). */
function fromNewest(body: any) {
  const s = body.data;
  return { token: s.token, scenario_data: { ...s.scenario_data, token: String(s.scenario_data.token) }, created_at: s.created_at, state: { id: s.state.id, name: s.state.name }, chart: s.chart_img.split('?')[0] };
}
function fromSpec(body: any) {
  const s = body.data.scenario;
  return { token: s.token, scenario_data: { ...s.scenario_data, token: String(s.scenario_data.token) }, created_at: s.created_at, state: s.state, chart: s.chart_img.split('?')[0] };
}

describe('the two versions carry the same data', () => {
  test.prop([validScenarioData, validScenarioData, fc.boolean()], { numRuns: 12, endOnFailure: true })(
    'for random scenarios: create, view, save, list, revision, delete',
    reportable(async (first, second, createNewest) => {
      const { key } = await createAccountWithKey();
      const create = await api(key, createNewest ? NEWEST : SPEC).post('/scenarios', { scenarioData: first.data });
      expect(create.status).toBe(201);
      const token = createNewest ? create.body.data.token : create.body.data.scenario.token;

      const [viewNew, viewSpec] = [await api(key, NEWEST).get(`/scenarios/${token}`), await api(key, SPEC).get(`/scenarios/${token}`)];
      expect(fromSpec(viewSpec.body)).toEqual(fromNewest(viewNew.body));
      expect(fromSpec(viewSpec.body).scenario_data).toEqual((createNewest ? fromNewest : fromSpec)(create.body).scenario_data);

      const saveNew = await api(key, NEWEST).post('/scenarios/save', { token, scenarioData: second.data });
      const saveSpec = await api(key, SPEC).post('/scenarios/save', { token, scenarioData: second.data });
      expect(fromSpec(saveSpec.body).scenario_data).toEqual(fromNewest(saveNew.body).scenario_data);

      const [listNew, listSpec] = [await api(key, NEWEST).get('/scenarios'), await api(key, SPEC).get('/scenarios')];
      expect(listSpec.body).toEqual(listNew.body);

      const [revNew, revSpec] = [await api(key, NEWEST).get(`/scenarios/${token}/revisions/1`), await api(key, SPEC).get(`/scenarios/${token}/revisions/1`)];
      const revision = revSpec.body.data.revision;
      expect({ ...revision, scenario_data: { ...revision.scenario_data, token: String(revision.scenario_data.token) } }).toEqual(revNew.body.data);

      const [exportNew, exportSpec] = [await api(key, NEWEST).get('/scenarios/export'), await api(key, SPEC).get('/scenarios/export')];
      expect(exportSpec.text).toBe(exportNew.text);

      const deleted = await api(key, createNewest ? SPEC : NEWEST).delete(`/scenarios/${token}`);
      expect(deleted.status).toBe(200);
      expect((await api(key, NEWEST).get(`/scenarios/${token}`)).status).toBe(404);
    }),
    60_000,
  );
});
