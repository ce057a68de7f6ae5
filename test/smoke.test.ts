import { describe, expect, it } from 'vitest';
import { api, createAccountWithKey, createScenario } from './helpers/api.ts';

describe('smoke', () => {
  it('creates, views, lists, saves and deletes a scenario', async () => {
    const { key } = await createAccountWithKey();
    const created = await createScenario(key);
    const view = await api(key).get(`/scenarios/${created.token}`);
    expect(view.status).toBe(200);
    console.log(JSON.stringify(view.body, null, 1).slice(0, 1500), [...view.headers]);
    const list = await api(key).get('/scenarios');
    expect(list.status).toBe(200);
    console.log(JSON.stringify(list.body).slice(0, 600));
    const save = await api(key).post('/scenarios/save', { token: created.token, scenarioData: { ...created.scenario_data, year: 2025 } }, { 'If-Match': view.headers.get('ETag')! });
    expect(save.status).toBe(200);
    const chart = await api().get(new URL(created.chart_img).pathname + new URL(created.chart_img).search);
    expect(chart.status).toBe(200);
    const del = await api(key).delete(`/scenarios/${created.token}/delete`);
    expect(del.status).toBe(200);
    const miss = await api(key).get('/scenarios/save');
    console.log(miss.status, miss.headers.get('allow'), miss.text);
  });
});
