// Scenario history (docs/decisions.md, "Scenario revisions"): every create, save and restore records a
// revision in its own batch; list (newest first, keyset by version), view, restore (If-Match,
// read keys refused), diff as an RFC 6902 patch; pruning at SCENARIO_REVISIONS_KEPT; delete
// takes the history with it; another account's token is 404 everywhere.
import { fc, test } from '@fast-check/vitest';
import { applyPatch, deepClone } from 'fast-json-patch';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, createAccountWithKey, createKey, createScenario, dbOf, env, scenarioData } from './helpers/api.ts';
import { expectProblem, TIMESTAMP } from './helpers/scenarios.ts';
import { validScenarioData } from './helpers/fuzz.ts';
import { everyDb } from './helpers/databases.ts';

let key: string;
let accountId: number;
beforeEach(async () => {
  const created = await createAccountWithKey();
  key = created.key;
  accountId = created.account.id;
});

async function save(token: string, data: Record<string, unknown>, headers?: Record<string, string>, k = key) {
  return api(k).post('/scenarios/save', { token, scenarioData: data }, headers);
}

/** The year version n of `withVersions` holds (years are 1990–2100). */
const yearOf = (n: number) => 1990 + n;

/** A scenario saved `saves` times (at most 109): versions 1..saves+1, version n holding yearOf(n). */
async function withVersions(saves: number): Promise<string> {
  const { token } = await createScenario(key, scenarioData({ year: yearOf(1) }));
  for (let n = 2; n <= saves + 1; n++) {
    const res = await save(token, scenarioData({ year: yearOf(n) }));
    expect(res.status, res.text).toBe(200);
  }
  return token;
}

async function revisions(token: string, query = '', k = key) {
  const res = await api(k).get(`/scenarios/${token}/revisions${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body as { data: any[]; has_more: boolean };
}

const versionsOf = (page: { data: any[] }) => page.data.map((r) => r.version);

async function storedRevisionCount(token: string): Promise<number> {
  return everyDb.count('select count(*) as n from scenario_revisions where scenario_id = (select id from scenarios where token = ?)', token);
}

describe('recording', () => {
  it('records the create as version 1 with its data, state and time', async () => {
    const created = await createScenario(key, scenarioData({ year: 2030, state_id: 6 }));
    const page = await revisions(created.token);
    expect(page).toEqual({
      data: [{ version: 1, created_at: created.created_at, state: { id: 6, name: 'California' }, scenario_data: created.scenario_data }],
      has_more: false,
    });
    expect(page.data[0].created_at).toMatch(TIMESTAMP);
  });

  it('records each save as the version its ETag names, with what that save stored', async () => {
    const { token } = await createScenario(key, scenarioData({ year: 2001 }));
    const saved = await save(token, scenarioData({ year: 2002, state_id: 48 }));
    expect(saved.headers.get('ETag')).toBe('"v2"');
    const one = await api(key).get(`/scenarios/${token}/revisions/2`);
    expect(one.status).toBe(200);
    expect(one.body.data.status).toBe('success');
    expect(one.body.data.message).toBe('Revision found');
    expect(one.body.data.revision).toMatchObject({ version: 2, state: { id: 48, name: 'Texas' }, scenario_data: saved.body.data.scenario.scenario_data });
    expect((await api(key).get(`/scenarios/${token}/revisions/1`)).body.data.revision.scenario_data.year).toBe(2001);
  });

  it('answers 404 for a version never made', async () => {
    const token = await withVersions(1);
    expectProblem(await api(key).get(`/scenarios/${token}/revisions/3`), 404, 'not_found');
    expectProblem(await api(key).get(`/scenarios/${token}/revisions/0`), 404, 'not_found');
    expectProblem(await api(key).get(`/scenarios/${token}/revisions/abc`), 404, 'not_found');
  });

  it('records no revision for a refused save (stale If-Match, invalid data)', async () => {
    const token = await withVersions(1);
    expectProblem(await save(token, scenarioData({ year: 2050 }), { 'If-Match': '"v1"' }), 412, 'precondition_failed');
    expect((await save(token, scenarioData({ year: 1800 }))).status).toBe(422);
    expect(versionsOf(await revisions(token))).toEqual([2, 1]);
  });
});

describe('listing', () => {
  it('pages newest first, forward with starting_after and back with endding_before / ending_before', async () => {
    const token = await withVersions(6); // versions 1..7
    const first = await revisions(token, '?limit=3');
    expect(versionsOf(first)).toEqual([7, 6, 5]);
    expect(first.has_more).toBe(true);
    const second = await revisions(token, '?limit=3&starting_after=5');
    expect(versionsOf(second)).toEqual([4, 3, 2]);
    expect(second.has_more).toBe(true);
    const last = await revisions(token, '?limit=3&starting_after=2');
    expect(versionsOf(last)).toEqual([1]);
    expect(last.has_more).toBe(false);
    const back = await revisions(token, '?limit=3&endding_before=4');
    expect(versionsOf(back)).toEqual([7, 6, 5]);
    expect(back.has_more).toBe(false);
    const backSpelt = await revisions(token, '?limit=2&ending_before=2');
    expect(versionsOf(backSpelt)).toEqual([4, 3]);
    expect(backSpelt.has_more).toBe(true);
  });

  it('defaults to 10 and takes any positive integer as a cursor', async () => {
    const token = await withVersions(11); // versions 1..12
    expect(versionsOf(await revisions(token))).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    expect(versionsOf(await revisions(token, '?starting_after=999'))).toHaveLength(10);
    expect(await revisions(token, '?endding_before=999')).toEqual({ data: [], has_more: false });
  });

  it('refuses bad queries with 400 invalid_query', async () => {
    const token = await withVersions(0);
    for (const query of ['?limit=0', '?limit=101', '?starting_after=0', '?starting_after=2&endding_before=1', '?version=1']) {
      expectProblem(await api(key).get(`/scenarios/${token}/revisions${query}`), 400, 'invalid_query');
    }
  });
});

describe('pruning', () => {
  it('keeps the newest 100 revisions (SCENARIO_REVISIONS_KEPT), pruned in the batch of the change', async () => {
    expect(env.SCENARIO_REVISIONS_KEPT).toBe('100');
    const token = await withVersions(102); // versions 1..103
    expect(await storedRevisionCount(token)).toBe(100);
    // The oldest kept is version 4: the page just newer than version 1 starts there.
    const oldest = await revisions(token, '?endding_before=1&limit=1');
    expect(versionsOf(oldest)).toEqual([4]);
    expect(oldest.has_more).toBe(true);
    expect(versionsOf(await revisions(token, '?starting_after=5'))).toEqual([4]);
    expectProblem(await api(key).get(`/scenarios/${token}/revisions/3`), 404, 'not_found');
    expect((await api(key).get(`/scenarios/${token}/revisions/4`)).status).toBe(200);
    expectProblem(await api(key).post(`/scenarios/${token}/revisions/2/restore`), 404, 'not_found');
  });
});

describe('restore', () => {
  it("saves the revision's data as the next version, recorded as a revision of its own", async () => {
    const token = await withVersions(2); // versions 1..3
    const v1 = (await api(key).get(`/scenarios/${token}/revisions/1`)).body.data.revision;
    const res = await api(key).post(`/scenarios/${token}/revisions/1/restore`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('ETag')).toBe('"v4"');
    expect(res.body.data.message).toBe('Scenario restored');
    expect(res.body.data.scenario.scenario_data).toEqual(v1.scenario_data);
    expect(res.body.data.scenario.chart_img).toContain(`/scenarios/${token}/chart.svg?exp=`);
    const view = await api(key).get(`/scenarios/${token}`);
    expect(view.headers.get('ETag')).toBe('"v4"');
    expect(view.body.data.scenario.scenario_data).toEqual(v1.scenario_data);
    const page = await revisions(token, '?limit=1');
    expect(page.data[0]).toMatchObject({ version: 4, scenario_data: v1.scenario_data, state: v1.state });
  });

  it('honours If-Match: a stale ETag is 412 with the current one and changes nothing; the current one restores', async () => {
    const token = await withVersions(2); // at v3
    const stale = await api(key).post(`/scenarios/${token}/revisions/1/restore`, undefined, { 'If-Match': '"v2"' });
    expectProblem(stale, 412, 'precondition_failed');
    expect(stale.headers.get('ETag')).toBe('"v3"');
    expect(versionsOf(await revisions(token))).toEqual([3, 2, 1]);
    expect((await api(key).get(`/scenarios/${token}`)).body.data.scenario.scenario_data.year).toBe(yearOf(3));

    const fresh = await api(key).post(`/scenarios/${token}/revisions/1/restore`, undefined, { 'If-Match': '"v3"' });
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.headers.get('ETag')).toBe('"v4"');
    expect(fresh.body.data.scenario.scenario_data.year).toBe(yearOf(1));
    const any = await api(key).post(`/scenarios/${token}/revisions/2/restore`, undefined, { 'If-Match': '*' });
    expect(any.headers.get('ETag')).toBe('"v5"');
  });

  it('is 404 for an unknown version or token, and 403 for a read key, changing nothing', async () => {
    const token = await withVersions(1);
    expectProblem(await api(key).post(`/scenarios/${token}/revisions/9/restore`), 404, 'not_found');
    expectProblem(await api(key).post(`/scenarios/${token}/revisions/9/restore`, undefined, { 'If-Match': '"v1"' }), 404, 'not_found');
    expectProblem(await api(key).post('/scenarios/123456789012345/revisions/1/restore'), 404, 'not_found');
    const reader = await createKey(accountId, { scope: 'read' });
    expectProblem(await api(reader.key).post(`/scenarios/${token}/revisions/1/restore`), 403, 'forbidden');
    expect(versionsOf(await revisions(token, '', reader.key))).toEqual([2, 1]);
  });

  it('records a scenario.saved event in the same batch', async () => {
    const token = await withVersions(1);
    await api(key).post(`/scenarios/${token}/revisions/1/restore`);
    const events = await everyDb.prepare('select type, version from events where token = ? order by seq').bind(token).all();
    expect(events.results).toEqual([
      { type: 'scenario.created', version: 1 },
      { type: 'scenario.saved', version: 2 },
      { type: 'scenario.saved', version: 3 },
    ]);
  });
});

describe('diff', () => {
  it('gives the RFC 6902 patch from one version to another, and to the current one by default', async () => {
    const { token } = await createScenario(key, scenarioData({ year: 2001 }));
    await save(token, scenarioData({ year: 2002, programs: ['snap'] }));
    await save(token, scenarioData({ year: 2003, programs: ['snap'] }));
    const res = await api(key).get(`/scenarios/${token}/diff?from=1&to=2`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.from).toBe(1);
    expect(res.body.data.to).toBe(2);
    const patch = res.body.data.patch as Array<{ op: string; path: string; value?: unknown }>;
    expect(patch).toContainEqual({ op: 'replace', path: '/year', value: 2002 });
    expect(patch.every((op) => ['add', 'remove', 'replace'].includes(op.op) && op.path.startsWith('/'))).toBe(true);
    const current = await api(key).get(`/scenarios/${token}/diff?from=2`);
    expect(current.body.data).toEqual({ from: 2, to: 3, patch: [{ op: 'replace', path: '/year', value: 2003 }] });
    expect((await api(key).get(`/scenarios/${token}/diff?from=3`)).body.data.patch).toEqual([]);
  });

  it('is 404 for a version not kept and 400 without from', async () => {
    const token = await withVersions(1);
    expectProblem(await api(key).get(`/scenarios/${token}/diff?from=7`), 404, 'not_found');
    expectProblem(await api(key).get(`/scenarios/${token}/diff?from=1&to=7`), 404, 'not_found');
    expectProblem(await api(key).get(`/scenarios/${token}/diff`), 400, 'invalid_query');
    expectProblem(await api(key).get(`/scenarios/${token}/diff?from=x`), 400, 'invalid_query');
    expectProblem(await api(key).get(`/scenarios/${token}/diff?from=1&extra=1`), 400, 'invalid_query');
  });

  // Applied by an independent implementation (fast-json-patch), the patch turns from's data into to's.
  test.prop([validScenarioData, validScenarioData], { numRuns: 25 })('applying the patch to from gives to, both ways', async (a, b) => {
    const { token } = await createScenario(key, a.data);
    const saved = await save(token, b.data);
    expect(saved.status, saved.text).toBe(200);
    const [one, two] = await Promise.all([1, 2].map(async (v) => (await api(key).get(`/scenarios/${token}/revisions/${v}`)).body.data.revision.scenario_data));
    for (const [from, to, target] of [[1, 2, two], [2, 1, one]] as const) {
      const res = await api(key).get(`/scenarios/${token}/diff?from=${from}&to=${to}`);
      expect(res.status, res.text).toBe(200);
      const source = from === 1 ? one : two;
      expect(applyPatch(deepClone(source), res.body.data.patch, true, false).newDocument).toEqual(target);
    }
    // 25 runs of six requests each: past vitest's 5 s on a busy machine (the full suite's load).
  }, 30_000);
});

describe('delete and isolation', () => {
  it('delete removes every revision with the scenario', async () => {
    const token = await withVersions(3);
    expect(await storedRevisionCount(token)).toBe(4);
    // Scenario ids are numbered per database: ask the account's own.
    const db = dbOf(accountId);
    const row = await db.prepare('select id from scenarios where token = ?').bind(token).first<{ id: number }>();
    expect((await api(key).delete(`/scenarios/${token}`)).status).toBe(200);
    const left = await db.prepare('select count(*) as n from scenario_revisions where scenario_id = ?').bind(row?.id).first<{ n: number }>();
    expect(left?.n).toBe(0);
    expectProblem(await api(key).get(`/scenarios/${token}/revisions`), 404, 'not_found');
    expectProblem(await api(key).get(`/scenarios/${token}/revisions/1`), 404, 'not_found');
    expectProblem(await api(key).get(`/scenarios/${token}/diff?from=1`), 404, 'not_found');
  });

  it("another account's token is 404 on every history route, and changes nothing", async () => {
    const token = await withVersions(1);
    const other = await createAccountWithKey();
    for (const res of [
      await api(other.key).get(`/scenarios/${token}/revisions`),
      await api(other.key).get(`/scenarios/${token}/revisions/1`),
      await api(other.key).get(`/scenarios/${token}/diff?from=1&to=2`),
      await api(other.key).post(`/scenarios/${token}/revisions/1/restore`),
      await api(other.key).post(`/scenarios/${token}/revisions/1/restore`, undefined, { 'If-Match': '"v2"' }),
    ]) {
      expectProblem(res, 404, 'not_found');
    }
    expect(versionsOf(await revisions(token))).toEqual([2, 1]);
  });

  it('needs a valid key on every history route', async () => {
    const token = await withVersions(0);
    for (const res of [
      await api().get(`/scenarios/${token}/revisions`),
      await api('scn_nope').get(`/scenarios/${token}/revisions/1`),
      await api().get(`/scenarios/${token}/diff?from=1`),
      await api().post(`/scenarios/${token}/revisions/1/restore`),
    ]) {
      expect(res.status).toBe(401);
    }
  });
});
