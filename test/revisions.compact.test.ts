// Compact history (docs/decisions.md, "Compact history"): revisions are stored as reverse patches,
// yet every revision read back, the diff and a restore are exact and one round trip. Random edit
// sequences (whole new households, and small edits of the one before) are saved, then every version
// is read back, listed, and restored, against what each save stored.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { adult, api, createAccountWithKey, createScenario, dbOf, scenarioData } from './helpers/api.ts';
import { ADULT_MONEY, decimalText, validScenarioData } from './helpers/fuzz.ts';
import { roundTripsOf } from './helpers/worker-on.ts';

type Data = Record<string, any>;

/** A change of the household: a whole new one, or one member field edited. */
const edit = fc.oneof(
  validScenarioData.map((v) => (_: Data) => v.data as Data),
  fc.record({ field: fc.constantFrom(...ADULT_MONEY), value: decimalText, at: fc.nat() }).map(({ field, value, at }) => (data: Data) => {
    const next = structuredClone(data);
    next.adult[at % next.adult.length][field] = value;
    return next;
  }),
  fc.integer({ min: 1990, max: 2100 }).map((year) => (data: Data) => ({ ...data, year })),
  // An adult more or fewer: the array's length changes (patches append, or remove from the end).
  fc.boolean().map((more) => (data: Data) => {
    const next = structuredClone(data);
    if (more) next.adult.push({ ...next.adult.at(-1), id: undefined });
    else if (next.adult.length > 1) next.adult.pop();
    next.adult = next.adult.map((a: Data, i: number) => ({ ...a, id: i + 1 }));
    return next;
  }),
  // The same data again: a save that changes nothing still makes a version.
  fc.constant((data: Data) => data),
);

/** The data as it went in, in the form the API sends back (its stored text, read from D1). */
async function storedText(accountId: number, token: string): Promise<string> {
  const row = await dbOf(accountId).prepare('select scenario_data from scenarios where token = ?').bind(token).first<{ scenario_data: string }>();
  return row!.scenario_data;
}

describe('compact history', () => {
  test.prop([validScenarioData, fc.array(edit, { minLength: 1, maxLength: 8 }), fc.nat()], { numRuns: 20 })(
    'reads back, lists, diffs and restores every version exactly as it was saved',
    async (first, edits, pick) => {
      const { key, account } = await createAccountWithKey();
      let input = first.data as Data;
      const created = await createScenario(key, input);
      const token = created.token;
      const shown = [created.scenario_data];
      const texts = [await storedText(account.id, token)];
      for (const change of edits) {
        input = change(input);
        const saved = await api(key).post('/scenarios/save', { token, scenarioData: input });
        expect(saved.status, saved.text).toBe(200);
        shown.push(saved.body.data.scenario.scenario_data);
        texts.push(await storedText(account.id, token));
      }
      const versions = shown.length;
      // Each version on its own, and all of them in one page, newest first.
      for (let v = 1; v <= versions; v++) {
        const one = await api(key).get(`/scenarios/${token}/revisions/${v}`);
        expect(one.status, one.text).toBe(200);
        expect(JSON.stringify(one.body.data.revision.scenario_data)).toBe(JSON.stringify(shown[v - 1]));
      }
      const page = await api(key).get(`/scenarios/${token}/revisions?limit=100`);
      expect(page.body.data.map((r: Data) => JSON.stringify(r.scenario_data))).toEqual(shown.map((d) => JSON.stringify(d)).reverse());
      // Pages of two, both ways, give the same versions.
      const older = await api(key).get(`/scenarios/${token}/revisions?limit=2&starting_after=${versions}`);
      expect(older.body.data.map((r: Data) => r.version)).toEqual([versions - 1, versions - 2].filter((v) => v >= 1));
      const newer = await api(key).get(`/scenarios/${token}/revisions?limit=2&ending_before=1`);
      expect(newer.body.data.map((r: Data) => r.version)).toEqual([3, 2].filter((v) => v <= versions));
      // A restore writes that version's stored text back, byte for byte (rebuilt in SQL).
      const k = 1 + (pick % versions);
      const restored = await api(key).post(`/scenarios/${token}/revisions/${k}/restore`);
      expect(restored.status, restored.text).toBe(200);
      expect(JSON.stringify(restored.body.data.scenario.scenario_data)).toBe(JSON.stringify(shown[k - 1]));
      expect(await storedText(account.id, token)).toBe(texts[k - 1]);
      // And every version still reads back after it (the restore's own revision on top).
      const after = await api(key).get(`/scenarios/${token}/revisions?limit=100`);
      expect(after.body.data.map((r: Data) => JSON.stringify(r.scenario_data))).toEqual([shown[k - 1], ...shown.slice().reverse()].map((d) => JSON.stringify(d)));
      const diff = await api(key).get(`/scenarios/${token}/diff?from=1&to=${versions}`);
      expect(diff.status, diff.text).toBe(200);
    },
    120_000,
  );

  it('stores a small edit as a small patch, and the current version as none', async () => {
    const { key, account } = await createAccountWithKey();
    const { token } = await createScenario(key, scenarioData());
    const edited = scenarioData({ adult: [adult({ wage_rate: '19.25' }), scenarioData().adult[1]] });
    expect((await api(key).post('/scenarios/save', { token, scenarioData: edited })).status).toBe(200);
    const rows = await dbOf(account.id)
      .prepare('select version, patch from scenario_revisions where scenario_id = (select id from scenarios where token = ?) order by version')
      .bind(token)
      .all<{ version: number; patch: string | null }>();
    expect(rows.results).toEqual([
      // The path as SQLite's json_tree spells it (a key with an underscore is quoted).
      { version: 1, patch: '[["$.adult[0].\\"wage_rate\\"","18.50"]]' },
      { version: 2, patch: null },
    ]);
  });

  it('reads the oldest of 100 revisions, diffs and restores in one round trip each', { timeout: 60_000 }, async () => {
    const { key } = await createAccountWithKey();
    const { token } = await createScenario(key, scenarioData());
    for (let v = 2; v <= 100; v++) {
      const res = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ year: 1990 + v }) });
      expect(res.status).toBe(200);
    }
    expect(await roundTripsOf(key, 'GET', `/scenarios/${token}/revisions/1`)).toEqual({ status: 200, calls: 1 });
    expect(await roundTripsOf(key, 'GET', `/scenarios/${token}/revisions?limit=100`)).toEqual({ status: 200, calls: 1 });
    expect(await roundTripsOf(key, 'GET', `/scenarios/${token}/revisions?starting_after=50`)).toEqual({ status: 200, calls: 1 });
    expect(await roundTripsOf(key, 'GET', `/scenarios/${token}/diff?from=1&to=2`)).toEqual({ status: 200, calls: 1 });
    expect(await roundTripsOf(key, 'POST', `/scenarios/${token}/revisions/1/restore`)).toEqual({ status: 200, calls: 1 });
    const view = await api(key).get(`/scenarios/${token}`);
    expect(view.body.data.scenario.scenario_data.year).toBe(2026);
  });
});
