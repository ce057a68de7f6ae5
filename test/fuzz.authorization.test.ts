// Object-level authorization (OWASP API1), property-based: a second account armed with the first
// account's tokens, ETags, list ids and Idempotency-Keys tries every scenario operation. Each try
// must answer exactly what an unknown token gets (404, same body), never a 304/412 that would
// betray that the scenario exists; lists must hold none of the first account's items; and the
// first account's rows in D1 must not change at all.
import { fc, test } from '@fast-check/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createKey, env, send, type Reply } from './helpers/api.ts';
import { expectProblem } from './helpers/contract.ts';
import { accountRows, accountWithKeys, inPool, KeyRing, reportable, StatusTally, validScenarioData } from './helpers/fuzz.ts';
import { everyDb } from './helpers/databases.ts';
import { summary } from './helpers/summary.ts';

const RUNS = 200;
const VICTIM_SCENARIOS = 30;

interface Victim {
  id: number;
  token: string;
  etag: string;
  data: Record<string, unknown>;
  idempotencyKey?: string;
}

let A: KeyRing; // the victim
let B: KeyRing; // the attacker
let bReadKey = '';
const victims: Victim[] = [];
let aRowsBefore: Awaited<ReturnType<typeof accountRows>>;
let aListBefore: any[];
/** B's own scenarios: token → list id. */
const bItems = new Map<string, number>();
let bChartUrl = '';
/** What an unknown token gets from each operation (minus request_id). */
const reference = new Map<string, Record<string, unknown>>();
const tally = new StatusTally();
const attempts = new Map<string, number>();

const UNKNOWN_TOKEN = '100000000000007';
const problemShape = (res: Reply) => {
  const { request_id: _id, ...rest } = res.body as Record<string, unknown>;
  return rest;
};

async function listWhole(ring: KeyRing): Promise<any[]> {
  const res = await api(ring.next()).get('/scenarios?limit=100');
  expect(res.status, res.text).toBe(200);
  expect(res.body.has_more).toBe(false);
  return res.body.data;
}

beforeAll(async () => {
  [A, B] = await Promise.all([accountWithKeys(3), accountWithKeys(8)]);
  bReadKey = (await createKey(B.accountId, { scope: 'read' })).key;
  const samples = fc.sample(validScenarioData, { numRuns: VICTIM_SCENARIOS, seed: 20261121 });
  await inPool(samples, 6, async (sample, i) => {
    const idempotencyKey = i % 3 === 0 ? `victim-create-${i}` : undefined;
    const res = await api(A.next()).post('/scenarios', { scenarioData: sample.data }, idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {});
    expect(res.status, res.text).toBe(201);
    let etag = res.headers.get('ETag')!;
    // Some scenarios are saved once or twice, so ETags differ.
    for (let s = 0; s < i % 3; s++) {
      const saved = await api(A.next()).post('/scenarios/save', { token: res.body.data.scenario.token, scenarioData: sample.data }, { 'If-Match': etag });
      expect(saved.status, saved.text).toBe(200);
      etag = saved.headers.get('ETag')!;
    }
    victims.push({ id: 0, token: res.body.data.scenario.token, etag, data: sample.data, ...(idempotencyKey ? { idempotencyKey } : {}) });
  });
  aListBefore = await listWhole(A);
  for (const v of victims) v.id = aListBefore.find((item: any) => item.token === v.token)!.id;

  // B has scenarios of its own, created between A's ids as well as after them.
  for (const sample of fc.sample(validScenarioData, { numRuns: 5, seed: 7 })) {
    const res = await api(B.next()).post('/scenarios', { scenarioData: sample.data });
    expect(res.status, res.text).toBe(201);
    bChartUrl = res.body.data.scenario.chart_img;
  }
  for (const item of await listWhole(B)) bItems.set(item.token, item.id);
  aRowsBefore = await accountRows(A.accountId);

  const body = { token: UNKNOWN_TOKEN, scenarioData: victims[0]!.data };
  const refs: Array<[string, Promise<Reply>]> = [
    ['view', api(B.next()).get(`/scenarios/${UNKNOWN_TOKEN}`)],
    ['savePOST', api(B.next()).post('/scenarios/save', body)],
    ['savePUT', api(B.next()).put('/scenarios/save', body)],
    ['delete', api(B.next()).delete(`/scenarios/${UNKNOWN_TOKEN}/delete`)],
    ['deleteAlias', api(B.next()).delete(`/scenarios/${UNKNOWN_TOKEN}`)],
  ];
  for (const [name, promise] of refs) {
    const res = await promise;
    expectProblem(res, 404, 'not_found');
    reference.set(name, problemShape(res));
  }
}, 60_000);

const victimIndex = fc.nat({ max: VICTIM_SCENARIOS - 1 });
const tokenForm = fc.constantFrom('string', 'number');
const ifMatch = fc.constantFrom('none', 'current', 'star', 'weak', 'stale');
const attemptArb = fc.record({
  victim: victimIndex,
  view: fc.record({ ifNoneMatch: fc.constantFrom('none', 'current', 'star'), readKey: fc.boolean() }),
  savePost: fc.record({ tokenForm, ifMatch, dataKey: fc.constantFrom('scenarioData', 'scenario_data'), data: validScenarioData }),
  savePut: fc.record({ tokenForm, ifMatch, dataKey: fc.constantFrom('scenarioData', 'scenario_data'), data: validScenarioData }),
  list: fc.record({
    cursor: fc.constantFrom('starting_after', 'endding_before', 'ending_before'),
    limit: fc.integer({ min: 1, max: 100 }),
    readKey: fc.boolean(),
  }),
  extras: fc.subarray(['chart', 'idempotencyReplay', 'encodedPath'] as const),
  order: fc.nat(),
});

function ifMatchValue(kind: string, v: Victim): Record<string, string> {
  const version = Number(v.etag.slice(2, -1));
  switch (kind) {
    case 'current':
      return { 'If-Match': v.etag };
    case 'star':
      return { 'If-Match': '*' };
    case 'weak':
      return { 'If-Match': `W/${v.etag}` };
    case 'stale':
      return { 'If-Match': `"v${version + 1}"` };
    default:
      return {};
  }
}

/** A 404 exactly like the one an unknown token gets, and no ETag to hint at a version. */
function expectSameAsUnknown(res: Reply, operation: string): void {
  expectProblem(res, 404, 'not_found');
  expect(problemShape(res), operation).toEqual(reference.get(operation));
  expect(res.headers.get('ETag'), operation).toBeNull();
}

describe('a second account with the first account’s tokens', () => {
  test.prop([attemptArb], { numRuns: RUNS })(
    'gets 404 for view, save (POST and PUT) and delete (both paths), lists none of its items, and changes nothing',
    reportable(async (a) => {
      const v = victims[a.victim]!;
      const count = (name: string) => attempts.set(name, (attempts.get(name) ?? 0) + 1);
      const track = (res: Reply, name: string) => {
        tally.add(res.status, name);
        count(name);
        expect(res.status, `${name} → ${res.text.slice(0, 300)}`).toBeLessThan(500);
        return res;
      };
      const tokenValue = (form: string) => (form === 'number' ? Number(v.token) : v.token);

      const steps: Array<() => Promise<void>> = [
        async () => {
          const headers: Record<string, string> = a.view.ifNoneMatch === 'current' ? { 'If-None-Match': v.etag } : a.view.ifNoneMatch === 'star' ? { 'If-None-Match': '*' } : {};
          const key = a.view.readKey ? bReadKey : B.next();
          expectSameAsUnknown(track(await api(key).get(`/scenarios/${v.token}`, headers), 'view'), 'view');
        },
        async () => {
          const s = a.savePost;
          const res = await api(B.next()).post('/scenarios/save', { token: tokenValue(s.tokenForm), [s.dataKey]: s.data.data }, ifMatchValue(s.ifMatch, v));
          expectSameAsUnknown(track(res, 'savePOST'), 'savePOST');
        },
        async () => {
          const s = a.savePut;
          const res = await api(B.next()).put('/scenarios/save', { token: tokenValue(s.tokenForm), [s.dataKey]: s.data.data }, ifMatchValue(s.ifMatch, v));
          expectSameAsUnknown(track(res, 'savePUT'), 'savePUT');
        },
        async () => {
          expectSameAsUnknown(track(await api(B.next()).delete(`/scenarios/${v.token}/delete`), 'delete'), 'delete');
        },
        async () => {
          expectSameAsUnknown(track(await api(B.next()).delete(`/scenarios/${v.token}`), 'deleteAlias'), 'deleteAlias');
        },
        async () => {
          const { cursor, limit, readKey } = a.list;
          const res = track(await api(readKey ? bReadKey : B.next()).get(`/scenarios?${cursor}=${v.id}&limit=${limit}`), 'list');
          expect(res.status, res.text).toBe(200);
          const victimTokens = new Set(victims.map((x) => x.token));
          for (const item of res.body.data) {
            expect(item.user_id).toBe(B.accountId);
            expect(victimTokens.has(item.token), `listed ${item.token} of the other account`).toBe(false);
            expect(JSON.stringify(item)).not.toContain(v.token);
          }
          // Exactly B's page at that position: the cursor only positions, it names nothing.
          const ids = [...bItems.values()].sort((x, y) => y - x);
          const expected =
            cursor === 'starting_after'
              ? ids.filter((id) => id < v.id).slice(0, limit)
              : ids.filter((id) => id > v.id).reverse().slice(0, limit).reverse();
          expect(res.body.data.map((item: any) => item.id)).toEqual(expected);
        },
      ];
      if (a.extras.includes('chart')) {
        steps.push(async () => {
          // B's own signed chart URL with A's token in it: the signature names B's scenario only.
          const url = new URL(bChartUrl);
          const path = url.pathname.replace(/\/scenarios\/\d{15}\//, `/scenarios/${v.token}/`) + url.search;
          const res = track(await send('GET', path), 'chart');
          expectProblem(res, 403, 'forbidden');
          expect(res.text).not.toContain('<svg');
        });
      }
      if (a.extras.includes('idempotencyReplay') && v.idempotencyKey) {
        steps.push(async () => {
          // A's Idempotency-Key and A's body: keys are per account, so this is B's own create.
          const res = track(await api(B.next()).post('/scenarios', { scenarioData: v.data }, { 'Idempotency-Key': v.idempotencyKey! }), 'idempotencyReplay');
          expect(res.status, res.text).toBe(201);
          const token = res.body.data.scenario.token as string;
          expect(victims.some((x) => x.token === token), 'replayed the other account’s create').toBe(false);
          expect(res.text).not.toContain(v.token);
          if (res.headers.get('Idempotent-Replayed') === 'true') expect(bItems.has(token), 'a replay of B’s own create').toBe(true);
          else {
            const row = await everyDb.prepare('SELECT id, account_id FROM scenarios WHERE token = ?').bind(token).first<{ id: number; account_id: number }>();
            expect(row?.account_id).toBe(B.accountId);
            bItems.set(token, row!.id);
          }
        });
      }
      if (a.extras.includes('encodedPath')) {
        steps.push(async () => {
          const encoded = [...v.token].map((d) => `%3${d}`).join('');
          const res = track(await api(B.next()).get(`/scenarios/${encoded}`), 'encodedPath');
          expectProblem(res, 404, 'not_found');
        });
      }

      // In a random order, two at a time.
      const rotated = steps.map((_, i) => steps[(i + a.order) % steps.length]!);
      await inPool(rotated, 2, (step) => step());

      expect(await accountRows(A.accountId)).toEqual(aRowsBefore);
    }),
    120_000,
  );

  it('left the first account exactly as it was, and never answered 5xx', async () => {
    expect(await listWhole(A)).toEqual(aListBefore);
    for (const v of victims) {
      const res = await api(A.next()).get(`/scenarios/${v.token}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('ETag')).toBe(v.etag);
    }
    expect(tally.fiveXX).toEqual([]);
    const byKind = [...attempts.entries()].map(([k, n]) => `${k}=${n}`).join(' ');
    summary(`fuzz.authorization: ${RUNS} runs, ${tally.total} cross-account requests (${byKind}); statuses ${tally}`);
    expect(attempts.get('view')).toBeGreaterThanOrEqual(RUNS);
  });
});
