// Races through the real stack: concurrent saves with If-Match (one winner per version, no lost
// update), read-modify-write clients, last-write-wins without If-Match, racing deletes, and
// concurrent creates with one Idempotency-Key (one scenario, one reply).
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { api, env, scenarioData, type Reply } from './helpers/api.ts';
import { expectProblem } from './helpers/contract.ts';
import { accountWithKeys, KeyRing } from './helpers/fuzz.ts';
import { everyDb } from './helpers/databases.ts';
import { summary } from './helpers/summary.ts';

/** The scenario's row in D1: the version and the stored data. */
async function row(token: string): Promise<{ version: number; scenario_data: string } | null> {
  return everyDb.prepare('SELECT version, scenario_data FROM scenarios WHERE token = ?').bind(token).first();
}

async function createOne(ring: KeyRing): Promise<string> {
  const res = await api(ring.next()).post('/scenarios', { scenarioData: scenarioData() });
  expect(res.status, res.text).toBe(201);
  return res.body.data.scenario.token;
}

/** Scenario data marked with a writer number (sub_division), so each write is recognisable. */
const marked = (writer: number) => scenarioData({ sub_division: writer, year: 1990 + (writer % 111) });

function save(ring: KeyRing, token: string, data: Record<string, unknown>, headers: Record<string, string> = {}, method: 'POST' | 'PUT' = 'POST') {
  return api(ring.next()).send(method, '/scenarios/save', { body: { token, scenarioData: data }, headers });
}

const statuses = (replies: Reply[]) => replies.map((r) => r.status).sort((a, b) => a - b);

describe('If-Match', () => {
  it('50 concurrent saves with the current ETag: exactly one 200, 49 × 412, and the winner is what is stored', async () => {
    const ring = await accountWithKeys(3);
    const token = await createOne(ring);
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => save(ring, token, marked(i + 1), { 'If-Match': '"v1"' }, i % 2 ? 'PUT' : 'POST')),
    );
    expect(statuses(replies)).toEqual([200, ...Array(49).fill(412)]);
    const winner = replies.findIndex((r) => r.status === 200);
    expect(replies[winner]!.headers.get('ETag')).toBe('"v2"');
    for (const r of replies.filter((x) => x.status === 412)) {
      expectProblem(r, 412, 'precondition_failed');
      expect(r.headers.get('ETag')).toBe('"v2"');
    }
    const view = await api(ring.next()).get(`/scenarios/${token}`);
    expect(view.headers.get('ETag')).toBe('"v2"');
    expect(view.body.data.scenario.scenario_data.sub_division).toBe(winner + 1);
    expect(view.body.data.scenario.scenario_data).toEqual(replies[winner]!.body.data.scenario.scenario_data);
    expect((await row(token))!.version).toBe(2);
  });

  test.prop([fc.array(fc.integer({ min: 2, max: 20 }), { minLength: 5, maxLength: 15 })], { numRuns: 6 })(
    'rounds of concurrent saves with the current ETag: one winner per version, and the last acknowledged write is stored',
    async (rounds) => {
      const ring = await accountWithKeys(2);
      const token = await createOne(ring);
      let version = 1;
      let writer = 0;
      let lastAcknowledged: any;
      for (const n of rounds) {
        const writers = Array.from({ length: n }, () => ++writer);
        const replies = await Promise.all(writers.map((w, i) => save(ring, token, marked(w), { 'If-Match': `"v${version}"` }, i % 2 ? 'PUT' : 'POST')));
        expect(statuses(replies), `round at v${version}`).toEqual([200, ...Array(n - 1).fill(412)]);
        version += 1;
        for (const r of replies) expect(r.headers.get('ETag')).toBe(`"v${version}"`);
        lastAcknowledged = replies.find((r) => r.status === 200)!.body.data.scenario.scenario_data;
      }
      const view = await api(ring.next()).get(`/scenarios/${token}`);
      expect(view.headers.get('ETag')).toBe(`"v${version}"`);
      expect(view.body.data.scenario.scenario_data).toEqual(lastAcknowledged);
      const stored = (await row(token))!;
      expect(stored.version).toBe(version);
      expect(JSON.parse(stored.scenario_data)).toEqual({ ...lastAcknowledged, token });
    },
    60_000,
  );

  it('read-modify-write clients that retry on 412 lose no increment', async () => {
    const ring = await accountWithKeys(4);
    const token = await createOne(ring);
    const CLIENTS = 6;
    const INCREMENTS = 5;
    let acknowledged = 0;
    let retries = 0;
    const client = async () => {
      for (let done = 0; done < INCREMENTS; ) {
        const view = await api(ring.next()).get(`/scenarios/${token}`);
        expect(view.status).toBe(200);
        const current = view.body.data.scenario.scenario_data;
        const next = { ...current, sub_division: current.sub_division + 1 };
        delete next.token;
        delete next.state;
        next.state_id = current.state;
        const res = await save(ring, token, next, { 'If-Match': view.headers.get('ETag')! });
        if (res.status === 200) {
          done++;
          acknowledged++;
        } else {
          expectProblem(res, 412, 'precondition_failed');
          retries++;
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    expect(acknowledged).toBe(CLIENTS * INCREMENTS);
    const stored = (await row(token))!;
    // scenarioData() starts at sub_division 5.
    expect(JSON.parse(stored.scenario_data).sub_division).toBe(5 + CLIENTS * INCREMENTS);
    expect(stored.version).toBe(1 + CLIENTS * INCREMENTS);
    summary(`concurrency: ${CLIENTS} clients × ${INCREMENTS} increments, ${retries} retries after 412`);
  });

  it('without If-Match the last write wins: what is stored is the write acknowledged with the highest version', async () => {
    const ring = await accountWithKeys(2);
    const token = await createOne(ring);
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => save(ring, token, marked(i + 1))));
    expect(statuses(replies)).toEqual(Array(30).fill(200));
    const versions = replies.map((r) => Number(r.headers.get('ETag')!.slice(2, -1))).sort((a, b) => a - b);
    // Every save made its own version: none overwrote another without being counted.
    expect(versions).toEqual(Array.from({ length: 30 }, (_, i) => i + 2));
    const last = replies.find((r) => r.headers.get('ETag') === '"v31"')!;
    const view = await api(ring.next()).get(`/scenarios/${token}`);
    expect(view.body.data.scenario.scenario_data).toEqual(last.body.data.scenario.scenario_data);
  });
});

describe('deletes', () => {
  it('10 concurrent deletes of one scenario: exactly one 200, the rest 404', async () => {
    const ring = await accountWithKeys(2);
    const token = await createOne(ring);
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api(ring.next()).delete(i % 2 ? `/scenarios/${token}` : `/scenarios/${token}/delete`)),
    );
    expect(statuses(replies)).toEqual([200, ...Array(9).fill(404)]);
    expect(await row(token)).toBeNull();
  });

  it('a delete racing saves leaves nothing behind: each save is 200 (before) or 404 (after)', async () => {
    const ring = await accountWithKeys(3);
    for (let round = 0; round < 5; round++) {
      const token = await createOne(ring);
      const saves = Array.from({ length: 12 }, (_, i) => save(ring, token, marked(i + 1), i % 3 === 0 ? { 'If-Match': '*' } : {}));
      const del = api(ring.next()).delete(`/scenarios/${token}`);
      const replies = await Promise.all([...saves, del]);
      expect(replies.at(-1)!.status).toBe(200);
      for (const r of replies.slice(0, -1)) expect([200, 404]).toContain(r.status);
      expect(await row(token)).toBeNull();
      expect((await api(ring.next()).get(`/scenarios/${token}`)).status).toBe(404);
    }
  });
});

describe('Idempotency-Key', () => {
  const withoutChart = (r: Reply) => {
    const body = structuredClone(r.body);
    delete body.data.scenario.chart_img;
    return body;
  };

  async function race(ring: KeyRing, bodies: Array<Record<string, unknown>>, key: string) {
    return Promise.all(bodies.map((data) => api(ring.next()).post('/scenarios', { scenarioData: data }, { 'Idempotency-Key': key })));
  }

  async function scenariosOf(accountId: number): Promise<number> {
    return everyDb.count('SELECT COUNT(*) AS n FROM scenarios WHERE account_id = ?', accountId);
  }

  it('20 concurrent creates with one key: one scenario, identical replies (apart from chart_img) or 409', async () => {
    const ring = await accountWithKeys(2);
    const replies = await race(ring, Array.from({ length: 20 }, () => scenarioData()), 'race-key-1');
    const created = replies.filter((r) => r.status === 201);
    for (const r of replies.filter((x) => x.status !== 201)) expectProblem(r, 409, 'conflict');
    expect(created.length).toBeGreaterThanOrEqual(1);
    const first = withoutChart(created[0]!);
    for (const r of created) {
      expect(withoutChart(r)).toEqual(first);
      expect(r.headers.get('Location')).toBe(created[0]!.headers.get('Location'));
    }
    // One original; every other 201 says it is a replay.
    expect(created.filter((r) => r.headers.get('Idempotent-Replayed') !== 'true')).toHaveLength(1);
    expect(await scenariosOf(ring.accountId)).toBe(1);
    const list = await api(ring.next()).get('/scenarios');
    expect(list.body.data.map((i: any) => i.token)).toEqual([first.data.scenario.token]);
  });

  test.prop(
    [fc.integer({ min: 2, max: 20 }), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 })],
    { numRuns: 10 },
  )('concurrent creates with one key and one or two bodies: one scenario; the other body gets 422 idempotency_conflict', async (n, variant) => {
    const ring = await accountWithKeys(2);
    const bodies = Array.from({ length: n }, (_, i) => (variant[i] ? scenarioData({ year: 2030 }) : scenarioData()));
    const replies = await race(ring, bodies, `race-${n}`);
    expect(await scenariosOf(ring.accountId)).toBe(1);
    const created = replies.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const winnerYear = created[0]!.body.data.scenario.scenario_data.year;
    replies.forEach((r, i) => {
      const year = bodies[i]!.year;
      if (r.status === 201) {
        expect(year).toBe(winnerYear);
        expect(withoutChart(r)).toEqual(withoutChart(created[0]!));
      } else if (r.status === 422) {
        expectProblem(r, 422, 'idempotency_conflict');
        expect(year).not.toBe(winnerYear);
      } else expectProblem(r, 409, 'conflict');
    });
    expect(created.filter((r) => r.headers.get('Idempotent-Replayed') !== 'true')).toHaveLength(1);
  });
});
