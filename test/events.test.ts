// GET /events (docs/decisions.md, "Events and webhooks"): every change recorded with it and no event
// without its change, thin events, the list's pagination and type filter, accounts kept apart,
// and one D1 round trip per request.
import { describe, expect, it } from 'vitest';
import { api, createAccountWithKey, createKey, createScenario, scenarioData } from './helpers/api.ts';
import { roundTripsOf } from './helpers/worker-on.ts';

type EventItem = { id: string; type: string; created_at: string; data: { token: string; version?: number } };

async function events(key: string, query = ''): Promise<EventItem[]> {
  const res = await api(key).get(`/events${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

describe('events recorded with their change', () => {
  it('create, save and delete each record one thin event, newest first', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2025 }) });
    await api(key).delete(`/scenarios/${token}`);
    const list = await events(key);
    expect(list.map((e) => [e.type, e.data])).toEqual([
      ['scenario.deleted', { token }],
      ['scenario.saved', { token, version: 2 }],
      ['scenario.created', { token, version: 1 }],
    ]);
    for (const event of list) {
      expect(Object.keys(event).sort()).toEqual(['created_at', 'data', 'id', 'type']);
      expect(event.id).toMatch(/^evt_[0-9a-f]{32}$/);
    }
  });

  it('a change that fails records no event (412, 404, 403 read key, 422)', async () => {
    const { account, key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const readKey = (await createKey(account.id, { scope: 'read' })).key;
    const before = await events(key);
    expect((await api(key).post('/scenarios/save', { token, scenarioData: scenarioData() }, { 'If-Match': '"v9"' })).status).toBe(412);
    expect((await api(key).delete('/scenarios/100000000000001')).status).toBe(404);
    expect((await api(readKey).post('/scenarios/save', { token, scenarioData: scenarioData() })).status).toBe(403);
    expect((await api(readKey).delete(`/scenarios/${token}`)).status).toBe(403);
    expect((await api(key).post('/scenarios', { scenarioData: scenarioData({ year: 1800 }) })).status).toBe(422);
    expect(await events(key)).toEqual(before);
  });

  it('each event names a change that happened: the scenario is at that version', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    await api(key).post('/scenarios/save', { token, scenarioData: scenarioData() });
    const [saved] = await events(key, '?type=scenario.saved');
    const view = await api(key).get(`/scenarios/${token}`);
    expect(view.headers.get('ETag')).toBe(`"v${saved?.data.version}"`);
  });

  it("another account's events are never listed, and its event ids are not cursors", async () => {
    const a = await createAccountWithKey();
    const b = await createAccountWithKey();
    await createScenario(a.key);
    expect(await events(b.key)).toEqual([]);
    const [foreign] = await events(a.key);
    const res = await api(b.key).get(`/events?starting_after=${foreign?.id}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_query');
  });
});

describe('GET /events pagination and filter', () => {
  async function accountWithEvents() {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    for (let i = 0; i < 4; i++) await api(key).post('/scenarios/save', { token, scenarioData: scenarioData() });
    await createScenario(key);
    return { key, all: await events(key, '?limit=100') };
  }

  it('pages forward with starting_after and back with endding_before / ending_before, has_more both ways', async () => {
    const { key, all } = await accountWithEvents();
    expect(all).toHaveLength(6);
    const first = await api(key).get('/events?limit=2');
    expect(first.body.data).toEqual(all.slice(0, 2));
    expect(first.body.has_more).toBe(true);
    const second = await api(key).get(`/events?limit=2&starting_after=${all[1]?.id}`);
    expect(second.body.data).toEqual(all.slice(2, 4));
    const last = await api(key).get(`/events?limit=2&starting_after=${all[3]?.id}`);
    expect(last.body).toEqual({ data: all.slice(4, 6), has_more: false });
    for (const name of ['endding_before', 'ending_before']) {
      const back = await api(key).get(`/events?limit=2&${name}=${all[4]?.id}`);
      expect(back.body).toEqual({ data: all.slice(2, 4), has_more: true });
    }
    expect((await api(key).get(`/events?limit=2&endding_before=${all[2]?.id}`)).body).toEqual({ data: all.slice(0, 2), has_more: false });
  });

  it('filters by type, and pages within the type', async () => {
    const { key, all } = await accountWithEvents();
    const saved = all.filter((e) => e.type === 'scenario.saved');
    expect(await events(key, '?type=scenario.saved&limit=100')).toEqual(saved);
    expect(await events(key, `?type=scenario.saved&limit=2&starting_after=${saved[1]?.id}`)).toEqual(saved.slice(2, 4));
    expect(await events(key, '?type=scenario.deleted')).toEqual([]);
  });

  it('refuses bad queries with 400 invalid_query', async () => {
    const { key, all } = await accountWithEvents();
    const cases = [
      '?limit=0',
      '?limit=101',
      '?type=scenario.renamed',
      '?starting_after=42',
      `?starting_after=${all[0]?.id}&endding_before=${all[2]?.id}`,
      `?endding_before=${all[0]?.id}&ending_before=${all[2]?.id}`,
      // Well-formed, but no event of this account (unknown, or pruned): its position is unknown.
      `?starting_after=evt_${'0'.repeat(32)}`,
      '?tpye=scenario.saved',
    ];
    for (const query of cases) {
      const res = await api(key).get(`/events${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code, query).toBe('invalid_query');
    }
  });

  it('needs an API key; a read key may list', async () => {
    const { account, key } = await createAccountWithKey();
    await createScenario(key);
    expect((await api().get('/events')).status).toBe(401);
    const readKey = (await createKey(account.id, { scope: 'read' })).key;
    expect(await events(readKey)).toHaveLength(1);
  });

  it('makes one D1 round trip, cursor and filter included', async () => {
    const { key, all } = await accountWithEvents();
    for (const path of ['/events', `/events?type=scenario.saved&starting_after=${all[0]?.id}`, `/events?endding_before=${all[3]?.id}`]) {
      expect(await roundTripsOf(key, 'GET', path), path).toEqual({ status: 200, calls: 1 });
    }
  });
});

describe('scenario writes', () => {
  it('still wait for one D1 round trip: the event goes to the queue after the reply, not through D1', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const requests: Array<[string, string, unknown]> = [
      ['POST', '/scenarios', { scenarioData: scenarioData() }],
      ['POST', '/scenarios/save', { token, scenarioData: scenarioData() }],
      ['POST', `/scenarios/${token}/revisions/1/restore`, undefined],
      ['DELETE', `/scenarios/${token}`, undefined],
    ];
    for (const [method, path, body] of requests) {
      const { status, calls } = await roundTripsOf(key, method, path, body);
      expect(status, path).toBeLessThan(300);
      expect(calls, path).toBe(1);
    }
  });
});
