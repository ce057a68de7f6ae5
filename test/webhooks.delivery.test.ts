// Delivery through the real queue of the vitest plugin, to a real HTTP receiver on loopback.
import { describe, expect, it } from 'vitest';
import { api, createAccountWithKey, createScenario, scenarioData } from './helpers/api.ts';
import { eventually, hookUrl, received, receiverName, registerEndpoint, verified } from './helpers/webhooks.ts';

describe('webhook delivery', () => {
  it('delivers created, saved and deleted, each signed (verified by standardwebhooks)', async () => {
    const { key } = await createAccountWithKey();
    const name = receiverName();
    const endpoint = await registerEndpoint(key, hookUrl(name));
    const { token } = await createScenario(key);
    expect((await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2025 }) })).status).toBe(200);
    expect((await api(key).delete(`/scenarios/${token}`)).status).toBe(200);

    const deliveries = await eventually(() => received(name), (list) => list.length >= 3);
    expect(deliveries).toHaveLength(3);
    const events = deliveries.map((d) => verified(d, endpoint.secret));
    expect(events.map((e) => e.type).sort()).toEqual(['scenario.created', 'scenario.deleted', 'scenario.saved']);
    const byType = Object.fromEntries(events.map((e) => [e.type, e]));
    expect(byType['scenario.created']?.data).toEqual({ token, version: 1 });
    expect(byType['scenario.saved']?.data).toEqual({ token, version: 2 });
    expect(byType['scenario.deleted']?.data).toEqual({ token });
    // webhook-id is the event id, as GET /events lists it.
    const listed = await api(key).get('/events');
    expect(new Set(deliveries.map((d) => d.headers['webhook-id']))).toEqual(new Set(listed.body.data.map((e: { id: string }) => e.id)));
  });
});
