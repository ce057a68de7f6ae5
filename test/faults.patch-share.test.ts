// D1's transient faults on a patch and on a share link's create and revoke: a round trip that
// fails before it runs, or after it committed (its reply lost), is retried, and the request still
// answers as if nothing had failed, having written its change exactly once. The Worker runs as
// deployed, with its D1 bindings wrapped to fail the chosen round trips (helpers/faulty-d1.ts).
import { describe, expect, it } from 'vitest';
import { api, child, createAccountWithKey, createScenario } from './helpers/api.ts';
import { freshAddress } from './helpers/contract.ts';
import { everyDb } from './helpers/databases.ts';
import { faultyD1, seededRandom, type Fault } from './helpers/faulty-d1.ts';
import { sendOn } from './helpers/worker-on.ts';

const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };
/** A patch that is not idempotent: applied twice, the household would have two more children. */
const addChild = [{ op: 'add', path: '/child/-', value: child({ age: 9 }) }];

/** A D1 whose n-th round trip fails as given, and every other one succeeds. */
const failing = (at: number, fault: Fault) => faultyD1((n) => (n === at ? fault : undefined));

async function scenarioRow(token: string) {
  return everyDb.prepare('select id, version, scenario_data from scenarios where token = ?').bind(token).first<{ id: number; version: number; scenario_data: string }>();
}

const count = (sql: string, ...values: unknown[]) => everyDb.count(sql, ...values);

describe.each(['before', 'after'] as const)('a round trip that fails %s it commits', (fault) => {
  // A patch's first round trip is its read, its second the guarded write.
  it.each([1, 2])('patch, round trip %i failing: 200, one version, one child added, one revision and one event', async (at) => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const d1 = failing(at, fault);
    const res = await sendOn(d1, key, 'PATCH', `/scenarios/${token}`, addChild, JSON_PATCH);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(d1.injected[fault]).toBe(1);
    expect(res.headers.get('ETag')).toBe('"v2"');
    const row = await scenarioRow(token);
    expect(row?.version).toBe(2);
    expect(JSON.parse(row!.scenario_data).child).toHaveLength(3);
    expect(res.body.data.scenario.scenario_data.child).toHaveLength(3);
    expect(await count('select count(*) as n from scenario_revisions r join scenarios s on s.id = r.scenario_id where s.token = ?', token)).toBe(2);
    expect(await count("select count(*) as n from events where token = ? and type = 'scenario.saved'", token)).toBe(1);
  });

  it('share-link create: 201, one link, and the URL returned is the one that opens', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const d1 = failing(1, fault);
    const res = await sendOn(d1, key, 'POST', `/scenarios/${token}/share_links`, { expires_in: 3600 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(d1.injected[fault]).toBe(1);
    expect(await count('select count(*) as n from share_links l join scenarios s on s.id = l.scenario_id where s.token = ?', token)).toBe(1);
    expect((await api(undefined, freshAddress()).get(new URL(res.body.url).pathname)).status).toBe(200);
  });

  it('share-link revoke: 200 with the first revocation time, and the link opens no more', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const link = (await api(key).post(`/scenarios/${token}/share_links`)).body;
    const d1 = failing(1, fault);
    const res = await sendOn(d1, key, 'DELETE', `/scenarios/${token}/share_links/${link.id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(d1.injected[fault]).toBe(1);
    const stored = await everyDb.prepare('select revoked_at from share_links where id = ?').bind(link.id).first<{ revoked_at: number }>();
    expect(new Date(res.body.revoked_at).getTime()).toBe(stored!.revoked_at);
    expect((await api(undefined, freshAddress()).get(new URL(link.url).pathname)).status).toBe(404);
  });
});

describe('20 patches in a row on a D1 failing a seeded third of its round trips (half before, half after commit)', () => {
  it('each answers 200, and the household holds exactly one child more per patch', { timeout: 60_000 }, async () => {
    const random = seededRandom(20261127);
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    let injected = 0;
    for (let i = 1; i <= 20; i++) {
      // At most 3 faults a request, so the retries get through.
      const d1 = faultyD1((n) => {
        if (n > 3) return undefined;
        const roll = random();
        return roll < 1 / 6 ? 'before' : roll < 1 / 3 ? 'after' : undefined;
      });
      // The household keeps at most 20 children: remove the one added, then add again, alternately.
      const body = i % 2 === 1 ? addChild : [{ op: 'remove', path: '/child/2' }];
      const res = await sendOn(d1, key, 'PATCH', `/scenarios/${token}`, body, JSON_PATCH);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.get('ETag')).toBe(`"v${i + 1}"`);
      injected += d1.injected.before + d1.injected.after;
      expect(JSON.parse((await scenarioRow(token))!.scenario_data).child).toHaveLength(i % 2 === 1 ? 3 : 2);
    }
    expect(injected).toBeGreaterThan(5);
    expect((await scenarioRow(token))!.version).toBe(21);
  });
});
