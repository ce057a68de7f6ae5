// D1's transient faults (docs/decisions.md: "One round trip, and D1's transient faults"): a round trip that
// fails before it runs, or after it committed, is retried; a retry never applies a write twice and
// recognises its own committed write; when the retries run out the answer is 503, never a 500.
// The Worker runs as deployed, with its D1 binding wrapped to fail the chosen round trips.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createAccountWithKey, createScenario, scenarioData } from './helpers/api.ts';
import { faultyD1, seededRandom, type Fault } from './helpers/faulty-d1.ts';
import { sendOn, type WorkerReply as Reply } from './helpers/worker-on.ts';
import { everyDb } from './helpers/databases.ts';
import { summary } from './helpers/summary.ts';

/** A D1 whose first round trip fails as given, and every later one succeeds. */
const failingFirst = (fault: Fault) => faultyD1((n) => (n === 1 ? fault : undefined));

async function rowsOf(accountId: number) {
  const { results } = await everyDb.prepare('select token, version, scenario_data from scenarios where account_id = ? order by id').bind(accountId).all<{
    token: string;
    version: number;
    scenario_data: string;
  }>();
  return results;
}

const marked = (n: number) => scenarioData({ sub_division: n });

describe.each(['before', 'after'] as const)('a round trip that fails %s it commits', (fault) => {
  it('create: 201 and exactly one scenario', async () => {
    const { account, key } = await createAccountWithKey();
    const d1 = failingFirst(fault);
    const res = await sendOn(d1, key, 'POST', '/scenarios', { scenarioData: marked(1) });
    expect(res.status).toBe(201);
    expect(d1.injected[fault]).toBe(1);
    const rows = await rowsOf(account.id);
    expect(rows.map((r) => r.token)).toEqual([res.body.data.scenario.token]);
    expect(rows[0]?.version).toBe(1);
  });

  it('create with an Idempotency-Key: 201, one scenario, and a replay names the same one', async () => {
    const { account, key } = await createAccountWithKey();
    const res = await sendOn(failingFirst(fault), key, 'POST', '/scenarios', { scenarioData: marked(1) }, { 'Idempotency-Key': 'faulty-1' });
    expect(res.status).toBe(201);
    expect(res.headers.get('Idempotent-Replayed')).toBeNull();
    const replay = await sendOn(faultyD1(() => undefined), key, 'POST', '/scenarios', { scenarioData: marked(1) }, { 'Idempotency-Key': 'faulty-1' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(replay.body.data.scenario.token).toBe(res.body.data.scenario.token);
    expect((await rowsOf(account.id)).map((r) => r.token)).toEqual([res.body.data.scenario.token]);
  });

  it('save: 200 and the version moves by exactly one', async () => {
    const { account, key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const res = await sendOn(failingFirst(fault), key, 'POST', '/scenarios/save', { token, scenarioData: marked(7) });
    expect(res.status).toBe(200);
    expect(res.headers.get('ETag')).toBe('"v2"');
    const [row] = await rowsOf(account.id);
    expect(row?.version).toBe(2);
    expect(JSON.parse(row!.scenario_data).sub_division).toBe(7);
  });

  it('save with If-Match: 200, not the 412 a retry of its own committed save would see', async () => {
    const { account, key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const res = await sendOn(failingFirst(fault), key, 'PUT', '/scenarios/save', { token, scenarioData: marked(8) }, { 'If-Match': '"v1"' });
    expect(res.status).toBe(200);
    expect(res.headers.get('ETag')).toBe('"v2"');
    expect((await rowsOf(account.id))[0]?.version).toBe(2);
  });

  it('delete: 200, not the 404 a retry of its own committed delete would see', async () => {
    const { account, key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const res = await sendOn(failingFirst(fault), key, 'DELETE', `/scenarios/${token}`);
    expect(res.status).toBe(200);
    expect(await rowsOf(account.id)).toEqual([]);
    // A new delete of the same token is a different request: 404.
    expect((await sendOn(faultyD1(() => undefined), key, 'DELETE', `/scenarios/${token}`)).status).toBe(404);
  });

  it('restore with If-Match: 200, one new version and one revision, not the 412 of its own committed restore', async () => {
    const { account, key } = await createAccountWithKey();
    const { token } = await createScenario(key, marked(1));
    expect((await sendOn(faultyD1(() => undefined), key, 'POST', '/scenarios/save', { token, scenarioData: marked(2) })).status).toBe(200);
    const res = await sendOn(failingFirst(fault), key, 'POST', `/scenarios/${token}/revisions/1/restore`, undefined, { 'If-Match': '"v2"' });
    expect(res.status).toBe(200);
    expect(res.headers.get('ETag')).toBe('"v3"');
    const [row] = await rowsOf(account.id);
    expect(row?.version).toBe(3);
    expect(JSON.parse(row!.scenario_data).sub_division).toBe(1);
    const { results } = await everyDb.prepare('select version from scenario_revisions where scenario_id = (select id from scenarios where token = ?) order by version')
      .bind(token)
      .all<{ version: number }>();
    expect(results.map((r) => r.version)).toEqual([1, 2, 3]);
  });

  it('history reads: 200 after a retry', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    expect((await sendOn(failingFirst(fault), key, 'GET', `/scenarios/${token}/revisions`)).status).toBe(200);
    expect((await sendOn(failingFirst(fault), key, 'GET', `/scenarios/${token}/revisions/1`)).status).toBe(200);
    expect((await sendOn(failingFirst(fault), key, 'GET', `/scenarios/${token}/diff?from=1`)).status).toBe(200);
  });

  it('reads: 200 after a retry', async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    expect((await sendOn(failingFirst(fault), key, 'GET', `/scenarios/${token}`)).status).toBe(200);
    expect((await sendOn(failingFirst(fault), key, 'GET', '/scenarios')).status).toBe(200);
    expect((await sendOn(failingFirst(fault), key, 'GET', '/me')).status).toBe(200);
  });
});

describe('when D1 keeps failing', () => {
  it('answers 503 unavailable with Retry-After after a few tries, and changes nothing', async () => {
    const { account, key } = await createAccountWithKey();
    const { token } = await createScenario(key);
    const before = await rowsOf(account.id);
    for (const [method, path, body] of [
      ['POST', '/scenarios', { scenarioData: marked(2) }],
      ['POST', '/scenarios/save', { token, scenarioData: marked(3) }],
      ['DELETE', `/scenarios/${token}`, undefined],
      ['GET', `/scenarios/${token}`, undefined],
    ] as const) {
      const d1 = faultyD1(() => 'before');
      const res = await sendOn(d1, key, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(503);
      expect(res.body).toMatchObject({ status: 503, code: 'unavailable' });
      expect(res.headers.get('Retry-After')).toMatch(/^[1-9][0-9]*$/);
      expect(d1.calls).toBeGreaterThan(1);
      expect(d1.calls).toBeLessThanOrEqual(5);
    }
    expect(await rowsOf(account.id)).toEqual(before);
  });

  it('does not retry an error that is not transient (a constraint, a bug): that stays one try', async () => {
    const { key } = await createAccountWithKey();
    const calls: string[] = [];
    const broken = faultyD1((n) => (calls.push(`call ${n}`), undefined));
    // A statement D1 refuses outright, outside the service: the wrapper still counts one round trip.
    await expect(broken.db.prepare('select * from no_such_table').all()).rejects.toThrow(/no such table/);
    expect(calls).toEqual(['call 1']);
    expect((await sendOn(broken, key, 'GET', '/me')).status).toBe(200);
  });
});

describe('600 mixed operations at c=4, 10 % of round trips failing (half before, half after the commit)', () => {
  it('gives no 500 or 503, no duplicate, no orphan, loses no acknowledged write, and no answer contradicts what happened', async () => {
    const { account, key } = await createAccountWithKey();
    const random = seededRandom(20261122);
    const totals = { calls: 0, before: 0, after: 0 };
    // Each request its own faulty D1, drawing from one seeded sequence. A request meets at most 3
    // faults, so the retries (5 tries) always get through here; running out is tested above.
    const send = async (key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const d1 = faultyD1((n) => {
        if (n > 3) return undefined;
        const roll = random();
        return roll < 0.05 ? 'before' : roll < 0.1 ? 'after' : undefined;
      });
      const res = await sendOn(d1, key, method, path, body, headers);
      totals.calls += d1.calls;
      totals.before += d1.injected.before;
      totals.after += d1.injected.after;
      return res;
    };
    const live = new Map<string, { version: number; sub: number }>(); // acknowledged state, per token
    const statuses: Record<number, number> = {};
    let marker = 100;
    let idempotencyKeys = 0;

    const one = async (i: number) => {
      const tokens = [...live.keys()];
      const token = tokens[i % Math.max(tokens.length, 1)];
      const kind = tokens.length < 3 ? 0 : i % 5;
      let res: Reply;
      if (kind === 0 || kind === 1) {
        const sub = ++marker;
        const headers: Record<string, string> = kind === 1 ? { 'Idempotency-Key': `mixed-${++idempotencyKeys}` } : {};
        res = await send(key, 'POST', '/scenarios', { scenarioData: marked(sub) }, headers);
        if (res.status === 201) live.set(res.body.data.scenario.token, { version: 1, sub });
      } else if (kind === 2 && token) {
        const sub = ++marker;
        const known = live.get(token)!;
        res = await send(key, 'POST', '/scenarios/save', { token, scenarioData: marked(sub) }, { 'If-Match': `"v${known.version}"` });
        const version = res.status === 200 ? Number(res.headers.get('ETag')!.slice(2, -1)) : 0;
        expect(version === 0 || version === known.version + 1, 'a save moves the version by one').toBe(true);
        // Replies to racing saves can arrive in any order; a deleted token stays deleted.
        const current = live.get(token);
        if (current && version > current.version) live.set(token, { version, sub });
      } else if (kind === 3 && token) {
        live.delete(token);
        res = await send(key, 'DELETE', `/scenarios/${token}`);
        // Only this worker deletes this token now, so the scenario existed: 404 would contradict it.
        expect(res.status).toBe(200);
      } else {
        res = await send(key, 'GET', token ? `/scenarios/${token}` : '/scenarios');
      }
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    };

    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < 600) await one(next++);
      }),
    );

    summary(`faults: 600 operations, ${totals.calls} round trips, ${totals.before} failed before, ${totals.after} after commit; statuses ${JSON.stringify(statuses)}`);
    expect(totals.before).toBeGreaterThan(20);
    expect(totals.after).toBeGreaterThan(20);
    expect(statuses[500]).toBeUndefined();
    expect(statuses[503]).toBeUndefined();
    const rows = await rowsOf(account.id);
    // Exactly the acknowledged scenarios exist (no orphan, no duplicate), each as last acknowledged.
    expect(rows.map((r) => r.token).sort()).toEqual([...live.keys()].sort());
    for (const row of rows) {
      const acknowledged = live.get(row.token)!;
      expect(row.version).toBe(acknowledged.version);
      expect(JSON.parse(row.scenario_data).sub_division).toBe(acknowledged.sub);
    }
  }, 120_000);
});
