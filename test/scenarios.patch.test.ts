// PATCH /scenarios/{token} (DECISIONS, "Partial updates"): merge patches and JSON Patches of
// scenario_data, validated like a save, If-Match, one revision and one event per patch, 415 with
// Accept-Patch, 409 for a failed test, two round trips, and patches racing saves with none lost.
import { describe, expect, it } from 'vitest';
import applyMergePatch from 'json-merge-patch/lib/apply.js';
import { adult, api, child, createAccountWithKey, scenarioData, type Reply } from './helpers/api.ts';
import { everyDb } from './helpers/databases.ts';
import { expectProblem, expectValidationFailed, pathsOf } from './helpers/scenarios.ts';
import { roundTripsOf } from './helpers/worker-on.ts';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };

async function newScenario(data = scenarioData()) {
  const { key } = await createAccountWithKey();
  const res = await api(key).post('/scenarios', { scenarioData: data });
  expect(res.status, res.text).toBe(201);
  return { key, token: res.body.data.scenario.token as string, data: res.body.data.scenario.scenario_data };
}

const patch = (key: string, token: string, body: unknown, headers: Record<string, string> = MERGE) =>
  api(key).send('PATCH', `/scenarios/${token}`, { raw: JSON.stringify(body), headers });

async function stored(token: string) {
  return everyDb.prepare('select version, scenario_data from scenarios where token = ?').bind(token).first<{ version: number; scenario_data: string }>();
}

async function savedEvents(token: string) {
  return everyDb.prepare("select version from events where token = ? and type = 'scenario.saved' order by version").bind(token).all<{ version: number }>();
}

/**
 * The scenario's kept revisions, oldest first, as the API rebuilds them (revisions are stored as
 * patches against the next newer one: docs/decisions.md, "Compact history").
 */
async function revisions(key: string, token: string) {
  const { body } = await api(key, { 'API-Version': '2026-11-21' }).get(`/scenarios/${token}/revisions?limit=100`);
  const items = body.data as Array<{ version: number; scenario_data: any }>;
  return items.map((r) => ({ version: r.version, data: { ...r.scenario_data, token } as any })).reverse();
}

describe('RFC 7396 test vectors (Appendix A), through the merge-patch library the route applies', () => {
  const vectors: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  it.each(vectors.map((v, i) => [i + 1, ...v]))('vector %i', (_, original, patchDoc, result) => {
    expect(applyMergePatch(structuredClone(original), patchDoc)).toEqual(result);
  });
});

describe('PATCH /scenarios/{token}', () => {
  it('a merge patch changes one field and keeps the rest; one revision, one scenario.saved event, answered like a save', async () => {
    const { key, token, data } = await newScenario();
    const res = await patch(key, token, { year: 2027 });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('ETag')).toBe('"v2"');
    expect(res.body.data.status).toBe('success');
    expect(res.body.data.message).toBe('Scenario saved');
    expect(res.body.data.scenario.scenario_data).toEqual({ ...data, year: 2027 });
    expect(res.body.data.scenario.chart_img).toMatch(/\/chart\.svg\?exp=/);
    const view = await api(key).get(`/scenarios/${token}`);
    expect(view.body.data.scenario.scenario_data).toEqual({ ...data, year: 2027 });
    expect((await stored(token))!.version).toBe(2);
    expect((await savedEvents(token)).results).toEqual([{ version: 2 }]);
    expect((await revisions(key, token)).map((r) => r.version)).toEqual([1, 2]);
  });

  it('a merge patch removes an optional member with null, and replaces arrays whole', async () => {
    const { key, token, data } = await newScenario(scenarioData({ sub_division: 4 }));
    const res = await patch(key, token, { sub_division: null, programs: ['snap'] });
    expect(res.status, res.text).toBe(200);
    const { sub_division: _gone, ...rest } = data;
    expect(res.body.data.scenario.scenario_data).toEqual({ ...rest, programs: ['snap'] });
  });

  it('a JSON Patch replaces, adds and removes; a successful test lets it through', async () => {
    const { key, token, data } = await newScenario();
    const res = await patch(
      key,
      token,
      [
        { op: 'test', path: '/adult/0/wage_rate', value: '18.50' },
        { op: 'replace', path: '/adult/0/wage_rate', value: '21.00' },
        { op: 'add', path: '/child/-', value: child({ age: 12 }) },
        { op: 'remove', path: '/adult/1/nickname' },
      ],
      JSON_PATCH,
    );
    expect(res.status, res.text).toBe(200);
    const after = res.body.data.scenario.scenario_data;
    expect(after.adult[0]).toEqual({ ...data.adult[0], wage_rate: '21.00' });
    expect(after.adult[1].nickname).toBeUndefined();
    expect(after.child).toHaveLength(3);
    expect(after.child[2]).toMatchObject({ id: 3, age: 12 });
    expect(after.year).toBe(data.year);
  });

  it('a failed JSON Patch test is 409 conflict, and nothing of the patch is applied', async () => {
    const { key, token } = await newScenario();
    const before = await stored(token);
    const res = await patch(
      key,
      token,
      [
        { op: 'replace', path: '/year', value: 2030 },
        { op: 'test', path: '/adult/0/wage_rate', value: '99.00' },
      ],
      JSON_PATCH,
    );
    expectProblem(res, 409, 'conflict');
    expect(res.body.errors).toEqual([{ path: '[1].value', message: 'does not equal the stored value' }]);
    expect(await stored(token)).toEqual(before);
    expect((await savedEvents(token)).results).toEqual([]);
  });

  it('an operation on a path that names nothing is 422 naming the operation, nothing applied', async () => {
    const { key, token } = await newScenario();
    const before = await stored(token);
    const res = await patch(key, token, [{ op: 'replace', path: '/adult/5/age', value: 40 }], JSON_PATCH);
    expect(pathsOf(expectValidationFailed(res))).toEqual(['[0].path']);
    expect(await stored(token)).toEqual(before);
  });

  it('the result is validated like a save: 422 listing every problem under scenario_data, nothing changed', async () => {
    const { key, token } = await newScenario();
    const before = await stored(token);
    const res = await patch(key, token, { year: 1800, adult: [adult({ age: 200, wage_rate: '-1' })], colour: 'red' });
    expect(pathsOf(expectValidationFailed(res))).toEqual(['scenario_data.adult[0].age', 'scenario_data.adult[0].wage_rate', 'scenario_data.colour', 'scenario_data.year']);
    expect(await stored(token)).toEqual(before);
  });

  it('changing or removing the token is 422 naming it; sending it unchanged (number or string) is fine', async () => {
    const { key, token } = await newScenario();
    for (const body of [{ token: 111111111111111 }, { token: null }]) {
      const errors = expectValidationFailed(await patch(key, token, body));
      expect(pathsOf(errors)).toEqual(['scenario_data.token']);
    }
    const removed = await patch(key, token, [{ op: 'remove', path: '/token' }], JSON_PATCH);
    expect(pathsOf(expectValidationFailed(removed))).toEqual(['scenario_data.token']);
    expect((await patch(key, token, { token: Number(token), year: 2025 })).status).toBe(200);
    expect((await patch(key, token, { token, year: 2024 })).status).toBe(200);
  });

  it('a malformed patch document is 422 with paths into the body; prototype names are refused', async () => {
    const { key, token } = await newScenario();
    const ops = await patch(key, token, [{ op: 'jump', path: '/year' }, { op: 'add', path: 'year', value: 1 }, { op: 'add', path: '/year' }], JSON_PATCH);
    expect(pathsOf(expectValidationFailed(ops))).toEqual(['[0].op', '[1].path', '[2].value']);
    const proto = await patch(key, token, [{ op: 'add', path: '/__proto__/polluted', value: 1 }], JSON_PATCH);
    expect(pathsOf(expectValidationFailed(proto))).toEqual(['[0].path']);
    const mergeProto = await api(key).send('PATCH', `/scenarios/${token}`, { raw: '{"year":2025,"__proto__":{"polluted":1}}', headers: MERGE });
    expect(pathsOf(expectValidationFailed(mergeProto))).toEqual(['__proto__']);
    expect(expectValidationFailed(await patch(key, token, ['year'], MERGE)).length).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await stored(token))!.version).toBe(1);
  });

  it('other content types are 415 unsupported_media_type with Accept-Patch; a body that is not JSON is 400', async () => {
    const { key, token } = await newScenario();
    for (const type of ['application/json', 'text/plain', 'application/merge-patch']) {
      const res = await patch(key, token, { year: 2027 }, { 'Content-Type': type });
      expectProblem(res, 415, 'unsupported_media_type');
      expect(res.headers.get('Accept-Patch')).toBe('application/merge-patch+json, application/json-patch+json');
    }
    const res = await api(key).send('PATCH', `/scenarios/${token}`, { raw: '{"year":', headers: MERGE });
    expectProblem(res, 400, 'invalid_json');
    expect((await stored(token))!.version).toBe(1);
  });

  it('If-Match: the current ETag patches, a stale one is 412 with the current ETag and changes nothing', async () => {
    const { key, token } = await newScenario();
    expect((await patch(key, token, { year: 2027 }, { ...MERGE, 'If-Match': '"v1"' })).status).toBe(200);
    const stale = await patch(key, token, { year: 2028 }, { ...MERGE, 'If-Match': '"v1"' });
    expectProblem(stale, 412, 'precondition_failed');
    expect(stale.headers.get('ETag')).toBe('"v2"');
    expect((await stored(token))!.version).toBe(2);
    expect(JSON.parse((await stored(token))!.scenario_data).year).toBe(2027);
  });

  it('a read key is 403, another account\'s token and an unknown one are 404', async () => {
    const { key, token } = await newScenario();
    const other = await createAccountWithKey();
    expectProblem(await patch(other.key, token, { year: 2027 }), 404, 'not_found');
    expectProblem(await patch(key, '999999999999999', { year: 2027 }), 404, 'not_found');
    const reader = await createAccountWithKey({ scope: 'read' });
    expectProblem(await patch(reader.key, token, { year: 2027 }), 403, 'forbidden');
    expect((await stored(token))!.version).toBe(1);
  });

  it('takes two D1 round trips: the read, and the write guarded by the version read', async () => {
    const { key, token } = await newScenario();
    expect(await roundTripsOf(key, 'PATCH', `/scenarios/${token}`, { year: 2027 }, MERGE)).toEqual({ status: 200, calls: 2 });
    expect(await roundTripsOf(key, 'PATCH', `/scenarios/${token}`, [{ op: 'replace', path: '/year', value: 2028 }], JSON_PATCH)).toEqual({ status: 200, calls: 2 });
  });
});

describe('patches racing saves on one scenario', () => {
  it('50 patches and saves at once: each change applied on top of the version before it or refused, none lost', { timeout: 60_000 }, async () => {
    const { key, token } = await newScenario(scenarioData({ sub_division: 1 }));
    // Writer w: a save (even w) replaces the data, marked by sub_division = w; a patch (odd w)
    // sets the first adult's wage to w only, leaving the rest as the version it was applied to.
    const writers = Array.from({ length: 50 }, (_, i) => i + 2);
    const isSave = (w: number) => w % 2 === 0;
    const replies: Reply[] = await Promise.all(
      writers.map((w) =>
        isSave(w)
          ? api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ sub_division: w, year: 1990 + w }) })
          : patch(key, token, [{ op: 'replace', path: '/adult/0/wage_rate', value: `${w}.00` }], JSON_PATCH),
      ),
    );
    for (const res of replies) expect([200, 409], res.text).toContain(res.status);
    const accepted = replies.map((res, i) => ({ res, w: writers[i]! })).filter(({ res }) => res.status === 200);
    // Every acknowledged change made a version of its own, and every version after the first is one of them.
    const versions = accepted.map(({ res }) => Number(res.headers.get('ETag')!.slice(2, -1))).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: accepted.length }, (_, i) => i + 2));
    const history = await revisions(key, token);
    expect(history.map((r) => r.version)).toEqual([1, ...versions]);
    expect((await savedEvents(token)).results.map((e) => e.version)).toEqual(versions);
    // Each version is exactly its writer's change applied to the version before it.
    for (const { res, w } of accepted) {
      const version = Number(res.headers.get('ETag')!.slice(2, -1));
      const before = history.find((r) => r.version === version - 1)!.data;
      const after = history.find((r) => r.version === version)!.data;
      if (isSave(w)) expect([after.sub_division, after.year]).toEqual([w, 1990 + w]);
      else expect(after).toEqual({ ...before, adult: [{ ...before.adult[0], wage_rate: `${w}.00` }, ...before.adult.slice(1)] });
      expect(res.body.data.scenario.scenario_data).toEqual({ ...after, token: Number(token) });
    }
    // The saves always get through; a patch re-applies on each save that beat it, and is refused
    // (409, nothing written) only after PATCH_ATTEMPTS lost races: 25 patches at once, each
    // colliding with all the others, cannot all win within that bound.
    expect(accepted.filter(({ w }) => isSave(w))).toHaveLength(25);
    expect(accepted.length).toBeGreaterThan(30);
    for (const res of replies.filter((r) => r.status === 409)) expectProblem(res, 409, 'conflict');
    const final = await stored(token);
    expect(final!.version).toBe(1 + accepted.length);
  });
});
