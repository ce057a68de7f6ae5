// Keyset pagination under churn, property-based: an account's list is walked page by page —
// forward with starting_after, or backward with endding_before (ending_before) — while the same
// account creates and deletes scenarios between page fetches and concurrently with them, in random
// interleavings. No item may be listed twice, and every item that existed throughout the walk must
// be listed exactly once (docs/decisions.md: "pages never repeat or skip an item while others are
// created or deleted").
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect } from 'vitest';
import { api, dbOf, env } from './helpers/api.ts';
import { accountWithKeys, inPool, KeyRing, StatusTally } from './helpers/fuzz.ts';
import { everyDb } from './helpers/databases.ts';
import { summary } from './helpers/summary.ts';

const RUNS = 80;

const data = (year: number) => ({
  year,
  state_id: 6,
  programs: ['snap'],
  adult: [
    {
      age: 30, wage_rate: '12', yes_or_no: 1, adult_type: 1, is_married: 0, is_veteran: 0, unemp_comp: '0', monthly_ssi: '0',
      child_support: '0', other_unearned: '0', monthly_disability: '0', soc_sec_retirement: '0', same_snap_household: 1,
      work_hours_per_week: '40', is_spouse_in_household: 0, same_legal_hh_fed_state: 1, training_hours_per_week: '0',
      aged_or_disability_income: 0,
    },
  ],
});

const op = fc.oneof(fc.constant({ kind: 'create' as const, pick: 0 }), fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }));
const churnRun = fc.record({
  initial: fc.integer({ min: 0, max: 25 }),
  limit: fc.integer({ min: 1, max: 6 }),
  direction: fc.constantFrom('forward', 'backward'),
  backwardName: fc.constantFrom('endding_before', 'ending_before'),
  // Operations before each page fetch: awaited first, or sent together with the fetch.
  steps: fc.array(fc.record({ timing: fc.constantFrom('before', 'concurrent'), ops: fc.array(op, { minLength: 1, maxLength: 4 }) }), { maxLength: 25 }),
});

const tally = new StatusTally();
let pagesFetched = 0;
let opsRun = 0;
let runs = 0;

afterAll(() => {
  summary(`fuzz.pagination-churn: ${runs} walks, ${pagesFetched} pages, ${opsRun} concurrent creates/deletes; statuses ${tally}`);
});

describe('pagination while the account changes', () => {
  test.prop([churnRun], { numRuns: RUNS })(
    'never repeats an item and lists every item that existed throughout exactly once',
    async ({ initial, limit, direction, backwardName, steps }) => {
      runs++;
      const ring: KeyRing = await accountWithKeys(2);
      const key = () => ring.next();
      const create = async (year: number) => {
        const res = await api(key()).post('/scenarios', { scenarioData: data(year) });
        tally.add(res.status, 'create');
        expect(res.status, res.text).toBe(201);
        return res.body.data.scenario.token as string;
      };

      // The anchor is the oldest scenario and is never deleted: the backward walk starts after it.
      const anchor = await create(2000);
      const known = new Set<string>([anchor]);
      for (const token of await inPool(Array.from({ length: initial }), 4, (_, i) => create(2001 + i))) known.add(token);
      const anchorId = (await dbOf(ring.accountId).prepare('SELECT id FROM scenarios WHERE token = ?').bind(anchor).first<{ id: number }>())!.id;

      // What exists when the walk starts, straight from D1.
      const { results } = await everyDb.prepare('SELECT token FROM scenarios WHERE account_id = ?').bind(ring.accountId).all<{ token: string }>();
      const atStart = new Set(results.map((r) => r.token));
      expect(atStart).toEqual(known);
      const live = [...atStart].filter((t) => t !== anchor);
      const deleted = new Set<string>();

      const runOp = async (o: { kind: 'create' | 'delete'; pick: number }) => {
        opsRun++;
        if (o.kind === 'create') {
          const token = await create(2050);
          known.add(token);
          live.push(token);
          return;
        }
        if (live.length === 0) return;
        const [token] = live.splice(o.pick % live.length, 1) as [string];
        deleted.add(token); // counted from the moment it is sent: it did not exist throughout
        const res = await api(key()).delete(`/scenarios/${token}`);
        tally.add(res.status, 'delete');
        expect(res.status, res.text).toBe(200);
      };

      const seen: Array<{ id: number; token: string }> = [];
      const pages: number[][] = [];
      let cursor = direction === 'forward' ? undefined : anchorId;
      for (let page = 0; ; page++) {
        expect(page, 'the walk ends').toBeLessThan(500);
        const step = steps[page];
        if (step?.timing === 'before') for (const o of step.ops) await runOp(o);
        const query =
          direction === 'forward'
            ? `limit=${limit}${cursor === undefined ? '' : `&starting_after=${cursor}`}`
            : `limit=${limit}&${backwardName}=${cursor}`;
        const fetchPage = api(key()).get(`/scenarios?${query}`);
        const concurrent = step?.timing === 'concurrent' ? step.ops.map((o) => runOp(o)) : [];
        const [res] = await Promise.all([fetchPage, ...concurrent]);
        tally.add(res.status, 'list');
        pagesFetched++;
        expect(res.status, res.text).toBe(200);
        const items = res.body.data as Array<{ id: number; token: string; user_id: number }>;
        expect(items.length).toBeLessThanOrEqual(limit);
        for (const item of items) {
          expect(item.user_id).toBe(ring.accountId);
          expect(known.has(item.token), `listed ${item.token}, which this account never had`).toBe(true);
          seen.push({ id: item.id, token: item.token });
        }
        const ids = items.map((i) => i.id);
        // Newest first within every page, in either direction.
        expect(ids, 'a page is newest first').toEqual([...ids].sort((x, y) => y - x));
        pages.push(ids);
        if (!res.body.has_more) break;
        if (items.length === 0) throw new Error('has_more with an empty page');
        cursor = direction === 'forward' ? ids.at(-1) : ids[0];
      }

      // No repeats.
      const tokens = seen.map((s) => s.token);
      expect(new Set(tokens).size, `repeated: ${tokens.filter((t, i) => tokens.indexOf(t) !== i)}`).toBe(tokens.length);
      // Pages move strictly in their direction: forward to older ids, backward to newer ones.
      const flat = direction === 'forward' ? pages.flat() : pages.flatMap((p) => [...p].reverse());
      for (let i = 1; i < flat.length; i++) {
        if (direction === 'forward') expect(flat[i]!).toBeLessThan(flat[i - 1]!);
        else expect(flat[i]!).toBeGreaterThan(flat[i - 1]!);
      }
      if (direction === 'backward') for (const s of seen) expect(s.id).toBeGreaterThan(anchorId);
      // Every item that existed throughout the walk, exactly once (the backward walk starts after the anchor).
      const throughout = [...atStart].filter((t) => !deleted.has(t) && !(direction === 'backward' && t === anchor));
      const missing = throughout.filter((t) => !tokens.includes(t));
      expect(missing, `skipped while paging ${direction} with limit ${limit}`).toEqual([]);
    },
    120_000,
  );
});
