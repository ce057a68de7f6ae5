// GET /scenarios filters: state_id, year, program and updated_since, alone, combined, and with both
// cursors; bad values refused with 400 invalid_query; list items carry updated_at and version; the
// program index follows every write (create, save, restore, delete); pages under a filter on a
// mutable field never repeat an item (docs/decisions.md, "Finding and exporting scenarios").
import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { admin, api, createAccountWithKey, createKey, createScenario, scenarioData } from './helpers/api.ts';
import { expectProblem } from './helpers/contract.ts';

let key: string;
let accountId: number;
beforeEach(async () => {
  const created = await createAccountWithKey();
  key = created.key;
  accountId = created.account.id;
});

async function page(query: string, k = key) {
  const res = await api(k).get(`/scenarios${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body as { data: any[]; has_more: boolean };
}

/** Every item a filter lists, walking pages of `limit` forward. */
async function walk(filter: string, limit = 3, k = key): Promise<any[]> {
  const items: any[] = [];
  let cursor: number | undefined;
  for (;;) {
    const res = await page(`?limit=${limit}&${filter}${cursor === undefined ? '' : `&starting_after=${cursor}`}`, k);
    items.push(...res.data);
    if (!res.has_more) return items;
    cursor = res.data.at(-1).id;
  }
}

const tokensOf = (items: any[]) => items.map((s) => s.token);

/** Scenarios of several states, years and programs; their tokens oldest first, with what they hold. */
async function createVaried() {
  const specs = [
    { state_id: 36, year: 2024, programs: ['snap', 'eitc'] },
    { state_id: 6, year: 2025, programs: ['snap'] },
    { state_id: 36, year: 2025, programs: ['wic', 'ctc'] },
    { state_id: 48, year: 2024, programs: ['eitc'] },
    { state_id: 36, year: 2025, programs: ['snap', 'wic'] },
    { state_id: 6, year: 2026, programs: ['ctc', 'eitc', 'snap'] },
    { state_id: 36, year: 2024, programs: ['chip'] },
  ];
  const made: Array<{ token: string; state_id: number; year: number; programs: string[] }> = [];
  for (const spec of specs) made.push({ ...spec, token: (await createScenario(key, scenarioData(spec))).token });
  return made;
}

/** Tokens of the made scenarios that `keep` keeps, newest first (the list's order). */
const expected = (made: Awaited<ReturnType<typeof createVaried>>, keep: (m: (typeof made)[number]) => boolean) =>
  made.filter(keep).map((m) => m.token).reverse();

describe('list items', () => {
  it('carry updated_at and version, which a save moves', async () => {
    const { token } = await createScenario(key);
    const [created] = (await page('')).data;
    expect(created.updated_at).toBe(created.created_at);
    expect(created.version).toBe(1);
    const saved = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 2027 }) });
    expect(saved.status).toBe(200);
    const [after] = (await page('')).data;
    expect(after.version).toBe(2);
    expect(after.updated_at >= created.updated_at).toBe(true);
    expect(after.created_at).toBe(created.created_at);
    expect(Object.keys(after)).toEqual(['id', 'user_id', 'state', 'token', 'expired', 'created_at', 'updated_at', 'version', 'scenario_data']);
  });
});

describe('each filter alone', () => {
  it('state_id lists the scenarios of that state', async () => {
    const made = await createVaried();
    expect(tokensOf(await walk('state_id=36'))).toEqual(expected(made, (m) => m.state_id === 36));
    expect(tokensOf(await walk('state_id=48'))).toEqual(expected(made, (m) => m.state_id === 48));
    expect(await page('?state_id=1')).toEqual({ data: [], has_more: false });
  });

  it('year lists the scenarios of that year', async () => {
    const made = await createVaried();
    expect(tokensOf(await walk('year=2025'))).toEqual(expected(made, (m) => m.year === 2025));
    expect(await page('?year=1990')).toEqual({ data: [], has_more: false });
  });

  it('program lists the scenarios whose programs include it', async () => {
    const made = await createVaried();
    for (const program of ['snap', 'eitc', 'wic', 'chip']) {
      expect(tokensOf(await walk(`program=${program}`)), program).toEqual(expected(made, (m) => m.programs.includes(program)));
    }
    expect(await page('?program=tanf')).toEqual({ data: [], has_more: false });
  });

  it('updated_since lists the scenarios created or saved at or after it', async () => {
    const made = await createVaried();
    const items = (await page('?limit=100')).data;
    const byToken = new Map(items.map((i) => [i.token, i]));
    // Exactly at a scenario's own updated_at: it and the newer ones.
    const pivot = byToken.get(made[4]!.token);
    const since = await walk(`updated_since=${encodeURIComponent(pivot.updated_at)}`);
    expect(tokensOf(since)).toEqual(items.filter((i) => i.updated_at >= pivot.updated_at).map((i) => i.token));
    expect(tokensOf(since)).toContain(made[4]!.token);
    // Saving an old one brings it in, in its own place (the list stays in id order).
    await new Promise((resolve) => setTimeout(resolve, 5));
    const before = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await api(key).post('/scenarios/save', { token: made[1]!.token, scenarioData: scenarioData({ state_id: 6, year: 2025, programs: ['snap'] }) });
    expect(tokensOf(await walk(`updated_since=${before}`))).toEqual([made[1]!.token]);
    expect(await page('?updated_since=2999-01-01T00:00:00Z')).toEqual({ data: [], has_more: false });
  });

  it('updated_since takes any offset and rounds a finer fraction up to the next millisecond', async () => {
    await createScenario(key);
    const [item] = (await page('')).data;
    const ms = Date.parse(item.updated_at);
    const at = new Date(ms).toISOString(); // 2026-...T..:..:..sssZ
    const offset = new Date(ms + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    expect((await page(`?updated_since=${encodeURIComponent(offset)}`)).data).toHaveLength(1);
    expect((await page(`?updated_since=${at.replace('Z', '000Z')}`)).data).toHaveLength(1);
    // A hundredth of a microsecond after it: the scenario (stored to the millisecond) is before it.
    expect((await page(`?updated_since=${at.replace('Z', '0001Z')}`)).data).toHaveLength(0);
  });
});

describe('filters combined', () => {
  it('combines every filter with every other (AND)', async () => {
    const made = await createVaried();
    const cases: Array<[string, (m: (typeof made)[number]) => boolean]> = [
      ['state_id=36&year=2025', (m) => m.state_id === 36 && m.year === 2025],
      ['state_id=36&program=snap', (m) => m.state_id === 36 && m.programs.includes('snap')],
      ['year=2024&program=eitc', (m) => m.year === 2024 && m.programs.includes('eitc')],
      ['state_id=36&year=2025&program=wic', (m) => m.state_id === 36 && m.year === 2025 && m.programs.includes('wic')],
      ['state_id=6&year=2026&program=ctc&updated_since=2000-01-01T00:00:00Z', (m) => m.state_id === 6 && m.year === 2026 && m.programs.includes('ctc')],
      ['program=snap&updated_since=2000-01-01T00:00:00Z', (m) => m.programs.includes('snap')],
      ['state_id=36&updated_since=2000-01-01T00:00:00Z', (m) => m.state_id === 36],
      ['year=2024&updated_since=2000-01-01T00:00:00Z', (m) => m.year === 2024],
    ];
    for (const [query, keep] of cases) expect(tokensOf(await walk(query, 2)), query).toEqual(expected(made, keep));
  });

  it('pages backward with endding_before and ending_before under a filter', async () => {
    const made = await createVaried();
    const all = await walk('program=snap', 100);
    const oldest = all.at(-1);
    for (const name of ['endding_before', 'ending_before']) {
      const back = await page(`?limit=2&program=snap&${name}=${oldest.id}`);
      expect(tokensOf(back.data)).toEqual(tokensOf(all.slice(-3, -1)));
      expect(back.has_more).toBe(true);
    }
    const state = await walk('state_id=36', 100);
    const back = await page(`?limit=10&state_id=36&year=2025&endding_before=${state.at(-1).id}`);
    expect(tokensOf(back.data)).toEqual(expected(made, (m) => m.state_id === 36 && m.year === 2025));
    expect(back.has_more).toBe(false);
  });

  it('takes a cursor that names no item the filter lists (a position)', async () => {
    const made = await createVaried();
    const all = (await page('?limit=100')).data;
    const notSnap = all.find((i) => i.token === made[3]!.token); // Texas, eitc only
    const older = await page(`?program=snap&starting_after=${notSnap.id}`);
    expect(tokensOf(older.data)).toEqual([made[1]!.token, made[0]!.token]);
  });

  it("never lists another account's scenarios under any filter", async () => {
    const other = await createAccountWithKey();
    await createScenario(other.key, scenarioData({ state_id: 36, year: 2024, programs: ['snap'] }));
    const mine = (await createScenario(key, scenarioData({ state_id: 36, year: 2024, programs: ['snap'] }))).token;
    for (const query of ['state_id=36', 'year=2024', 'program=snap', 'updated_since=2000-01-01T00:00:00Z', 'state_id=36&year=2024&program=snap']) {
      expect(tokensOf(await walk(query)), query).toEqual([mine]);
    }
  });

  it('filters with a read-only key', async () => {
    const made = await createVaried();
    const reader = await createKey(accountId, { scope: 'read' });
    expect(tokensOf(await walk('program=wic', 10, reader.key))).toEqual(expected(made, (m) => m.programs.includes('wic')));
  });
});

describe('the program index follows every write', () => {
  const programsInIndex = async (token: string) =>
    (
      await env.DB.prepare(
        'SELECT program FROM scenario_programs WHERE scenario_id = (SELECT id FROM scenarios WHERE token = ?) ORDER BY program',
      )
        .bind(token)
        .all<{ program: string }>()
    ).results.map((r) => r.program);

  it('on save, restore and delete', async () => {
    const { token } = await createScenario(key, scenarioData({ programs: ['snap', 'eitc'] }));
    expect(await programsInIndex(token)).toEqual(['eitc', 'snap']);
    await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ programs: ['wic', 'eitc'] }) });
    expect(await programsInIndex(token)).toEqual(['eitc', 'wic']);
    expect(tokensOf(await walk('program=snap'))).toEqual([]);
    expect(tokensOf(await walk('program=wic'))).toEqual([token]);
    const restored = await api(key).post(`/scenarios/${token}/revisions/1/restore`);
    expect(restored.status, restored.text).toBe(200);
    expect(await programsInIndex(token)).toEqual(['eitc', 'snap']);
    expect(tokensOf(await walk('program=snap'))).toEqual([token]);
    expect((await api(key).delete(`/scenarios/${token}`)).status).toBe(200);
    expect(await programsInIndex(token)).toEqual([]);
  });

  it('state_id and year follow a save too', async () => {
    const { token } = await createScenario(key, scenarioData({ state_id: 36, year: 2024 }));
    await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ state_id: 6, year: 2030 }) });
    expect(tokensOf(await walk('state_id=36'))).toEqual([]);
    expect(tokensOf(await walk('state_id=6&year=2030'))).toEqual([token]);
  });

  it('holds exactly the programs of every stored scenario (what the migration backfills, and the triggers keep)', async () => {
    await createVaried();
    const { results } = await env.DB.prepare(
      `SELECT count(*) AS n FROM (
         SELECT s.id, j.value FROM scenarios s, json_each(s.scenario_data, '$.programs') j
         EXCEPT SELECT scenario_id, program FROM scenario_programs
         UNION ALL
         SELECT scenario_id, program FROM scenario_programs
         EXCEPT SELECT s.id, j.value FROM scenarios s, json_each(s.scenario_data, '$.programs') j)`,
    ).all<{ n: number }>();
    expect(results[0]!.n).toBe(0);
    const mismatched = await env.DB.prepare(
      'SELECT count(*) AS n FROM scenario_programs p JOIN scenarios s ON s.id = p.scenario_id WHERE p.account_id != s.account_id',
    ).first<{ n: number }>();
    expect(mismatched!.n).toBe(0);
  });
});

describe('updated_since while scenarios are saved during the walk', () => {
  it('never repeats one, and lists once every one that matched throughout', async () => {
    const made = await createVaried();
    const since = '2000-01-01T00:00:00Z';
    const first = await page(`?limit=3&updated_since=${since}`);
    // Save the newest (already listed) and an older one (not yet listed): neither moves.
    await api(key).post('/scenarios/save', { token: made[6]!.token, scenarioData: scenarioData({ state_id: 36, year: 2024, programs: ['chip'] }) });
    await api(key).post('/scenarios/save', { token: made[1]!.token, scenarioData: scenarioData({ state_id: 6, year: 2025, programs: ['snap'] }) });
    const rest: any[] = [];
    for (let cursor = first.data.at(-1).id; ; ) {
      const next = await page(`?limit=3&updated_since=${since}&starting_after=${cursor}`);
      rest.push(...next.data);
      if (!next.has_more) break;
      cursor = next.data.at(-1).id;
    }
    const tokens = [...tokensOf(first.data), ...tokensOf(rest)];
    expect(tokens).toEqual(made.map((m) => m.token).reverse());
    expect(rest.find((i) => i.token === made[1]!.token).version).toBe(2);
  });
});

describe('bad filters: 400 invalid_query, naming the parameter', () => {
  it.each([
    ['state_id', '3'],
    ['state_id', '0'],
    ['state_id', '57'],
    ['state_id', '036'],
    ['state_id', 'NY'],
    ['state_id', ''],
    ['year', '1989'],
    ['year', '2101'],
    ['year', '20x6'],
    ['year', '2026.0'],
    ['program', 'food_stamps'],
    ['program', 'SNAP'],
    ['updated_since', 'yesterday'],
    ['updated_since', '2026-02-30T00:00:00Z'],
    ['updated_since', '2026-01-01'],
    ['updated_since', '2026-01-01T25:00:00Z'],
  ])('refuses %s=%j', async (name, value) => {
    const res = await api(key).get(`/scenarios?${name}=${encodeURIComponent(value)}`);
    expectProblem(res, 400, 'invalid_query');
    expect(res.body.errors.map((e: any) => e.path)).toEqual([name]);
    expect(res.body.errors[0].message).toMatch(/must/);
  });

  it('says what a state_id must be', async () => {
    const res = await api(key).get('/scenarios?state_id=3');
    expect(res.body.errors[0].message).toBe('must be the FIPS code of a US state or DC, e.g. 36 for New York');
  });

  it('refuses a filter given twice, and unknown parameters', async () => {
    expectProblem(await api(key).get('/scenarios?state_id=36&state_id=6'), 400, 'invalid_query');
    const res = await api(key).get('/scenarios?programs=snap');
    expectProblem(res, 400, 'invalid_query');
    expect(res.body.errors.map((e: any) => e.path)).toEqual(['programs']);
  });

  it('lists every bad parameter at once', async () => {
    const res = await api(key).get('/scenarios?state_id=3&year=1&program=x&updated_since=y');
    expectProblem(res, 400, 'invalid_query');
    expect(res.body.errors.map((e: any) => e.path).sort()).toEqual(['program', 'state_id', 'updated_since', 'year']);
  });

  it('answers a refused key before a bad filter', async () => {
    const res = await api('scn_not-a-key').get('/scenarios?state_id=3');
    expect(res.status).toBe(401);
    const revoked = await createKey(accountId);
    await admin().delete(`/admin/keys/${revoked.id}`);
    expect((await api(revoked.key).get('/scenarios?year=1')).status).toBe(401);
  });
});
