// Property-based tests of the edge (issue 4, "Hardening"): generated scenarioData bodies through
// create and save, random Authorization headers, random list queries and scenario paths — all
// through the Worker's fetch against the local D1. Valid bodies must be stored and read back in
// the normalised form; mutated ones must be refused with the right 4xx problem, naming every bad
// path, and change nothing; nothing may ever answer 5xx. fast-check prints the seed of a failure.
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, BASE, createAccountWithKey, createKey, send, type Reply } from './helpers/api.ts';
import { expectProblem, expectUnauthorized, freshAddress } from './helpers/contract.ts';
import {
  accountRows,
  accountWithKeys,
  ADULT_OPTIONAL,
  ADULT_REQUIRED,
  CHILD_OPTIONAL,
  CHILD_REQUIRED,
  DATA_KEYS,
  expectedStored,
  formatPath,
  inPool,
  KeyRing,
  memberFieldKind,
  NOT_FIPS,
  reportable,
  StatusTally,
  validScenarioData,
  FIPS,
  type FieldKind,
} from './helpers/fuzz.ts';
import { TIMESTAMP, TOKEN } from './helpers/scenarios.ts';
import { US_STATES } from '../src/scenarios/states.ts';
import { summary } from './helpers/summary.ts';

const MAX_BODY = 256 * 1024;
const CONCURRENCY = 12;
/**
 * Bodies per property run, and runs: 40 × 75 valid + 70 × 105 mutated = 10,350 bodies. Every
 * authenticated request costs a D1 key lookup, which local D1 serialises (about 3 ms), so this is
 * what bounds the runtime (about a minute for this file), not the concurrency.
 */
const VALID_BATCH = 40;
const VALID_RUNS = 75;
const MUTATED_BATCH = 70;
const MUTATED_RUNS = 105;
/** One valid body in VIEW_EVERY is also read back through GET /scenarios/{token}; all of them through the list. */
const VIEW_EVERY = 3;
const SAVE_POOL = 100;
const MUTATION_POOL = 20;

const tally = {
  validCreate: 0,
  validSave: 0,
  mutatedCreate: 0,
  mutatedSave: 0,
  byKind: new Map<string, number>(),
  statuses: new StatusTally(),
};
const count = (kind: string) => tally.byKind.set(kind, (tally.byKind.get(kind) ?? 0) + 1);

const stateName = (id: number) => US_STATES.find((s) => s.id === id)?.name;
const stateSlug = (id: number) => US_STATES.find((s) => s.id === id)?.slug;
const bytes = (text: string) => new TextEncoder().encode(text).length;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = Record<string, unknown>;
type Path = Array<string | number>;
type ArbValue<A> = A extends fc.Arbitrary<infer T> ? T : never;

// -----------------------------------------------------------------------------------------------
// Accounts: V takes valid creates, S valid saves (a pool of 100 scenarios), M every mutated body
// (creates, and saves to its own pool). Several keys each: 600 requests a minute per key.

let V: KeyRing;
let S: KeyRing;
let M: KeyRing;
/** S's scenarios, newest first (by list id), with the version each is at. */
const savePool: Array<{ id: number; token: string; version: number; createdAt: string }> = [];
const mutationPool: string[] = [];

async function createRaw(ring: KeyRing, data: Obj): Promise<any> {
  const res = await api(ring.next()).post('/scenarios', { scenarioData: data });
  expect(res.status, res.text).toBe(201);
  return res.body.data.scenario;
}

const seedData = () => ({
  year: 2026,
  state_id: 36,
  programs: ['snap'],
  adult: [
    {
      age: 40, wage_rate: '10', yes_or_no: 1, adult_type: 1, is_married: 0, is_veteran: 0, unemp_comp: '0', monthly_ssi: '0',
      child_support: '0', other_unearned: '0', monthly_disability: '0', soc_sec_retirement: '0', same_snap_household: 1,
      work_hours_per_week: '40', is_spouse_in_household: 0, same_legal_hh_fed_state: 1, training_hours_per_week: '0',
      aged_or_disability_income: 0,
    },
  ],
});

beforeAll(async () => {
  [V, S, M] = await Promise.all([accountWithKeys(12), accountWithKeys(12), accountWithKeys(18)]);
  await inPool(Array.from({ length: SAVE_POOL }), 10, () => createRaw(S, seedData()));
  const listed = await api(S.next()).get(`/scenarios?limit=${SAVE_POOL}`);
  for (const item of listed.body.data) savePool.push({ id: item.id, token: item.token, version: 1, createdAt: item.created_at });
  expect(savePool).toHaveLength(SAVE_POOL);
  const mutated = await inPool(Array.from({ length: MUTATION_POOL }), 10, () => createRaw(M, seedData()));
  for (const s of mutated) mutationPool.push(s.token);
}, 60_000);

afterAll(() => {
  const kinds = [...tally.byKind.entries()].sort().map(([k, n]) => `${k}=${n}`).join(' ');
  summary(
    `fuzz.scenario-data: ${tally.validCreate} valid creates, ${tally.validSave} valid saves, ${tally.mutatedCreate} mutated creates, ` +
      `${tally.mutatedSave} mutated saves (${tally.validCreate + tally.validSave + tally.mutatedCreate + tally.mutatedSave} bodies); ` +
      `statuses ${tally.statuses}\n  mutations: ${kinds}`,
  );
});

/** Sends and tallies; a 5xx fails at once with what was sent. */
async function tracked(label: string, method: string, path: string, init: Parameters<typeof send>[2]): Promise<Reply> {
  const res = await send(method, path, init);
  tally.statuses.add(res.status, `${method} ${path} ${label}`);
  expect(res.status, `${label}: ${method} ${path} → ${res.text.slice(0, 500)}`).toBeLessThan(500);
  return res;
}

// -----------------------------------------------------------------------------------------------
// Valid bodies

const validCase = fc.record({
  scenario: validScenarioData,
  op: fc.constantFrom('create', 'save'),
  dataKey: fc.constantFrom('scenarioData', 'scenario_data'),
  method: fc.constantFrom('POST', 'PUT'),
  tokenAsNumber: fc.boolean(),
  ifMatch: fc.constantFrom('none', 'current', 'star', 'list'),
  idempotencyKey: fc.option(fc.uuid(), { nil: undefined, freq: 3 }),
  pretty: fc.boolean(),
});

function expectDetail(scenario: any, data: Obj, stateId: number, token: string): void {
  expect(scenario.token).toBe(token);
  expect(scenario.scenario_data).toEqual(expectedStored(data, Number(token)));
  expect(scenario.state).toEqual({ id: stateId, name: stateName(stateId) });
  expect(scenario.created_at).toMatch(TIMESTAMP);
  expect(scenario.chart_img).toMatch(new RegExp(`^${BASE}/scenarios/${token}/chart\\.svg\\?exp=\\d+&sig=`));
}

/** Characters XML 1.0 forbids even when escaped: C0 controls but tab/LF/CR, U+FFFE/U+FFFF, lone surrogates. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The chart_img URL works without a key and is an SVG an XML parser can read, whatever the nicknames hold. */
async function expectChart(url: string): Promise<void> {
  const { pathname, search } = new URL(url);
  const res = await tracked('chart', 'GET', pathname + search, {});
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  expect(res.headers.get('Content-Type')).toMatch(/^image\/svg\+xml/);
  expect(res.text).toMatch(/^(<\?xml[^>]*>\s*)?<svg[\s>]/);
  expect(res.text.trimEnd().endsWith('</svg>')).toBe(true);
  expect(NOT_XML.test(res.text), 'the SVG holds a character XML forbids').toBe(false);
}

let validRun = 0;
let idempotencySeq = 0;

describe('valid scenarioData', () => {
  test.prop([fc.array(validCase, { minLength: VALID_BATCH, maxLength: VALID_BATCH })], { numRuns: VALID_RUNS, endOnFailure: true })(
    'is stored and read back in the normalised form, through create and save (POST and PUT)',
    reportable(async (cases) => {
      const run = validRun++;
      const created: Array<{ token: string; data: Obj; stateId: number }> = [];
      const saved: Array<{ token: string; data: Obj; stateId: number }> = [];
      // The saves of a run go to a window of consecutive pool scenarios, so one list page reads them all back.
      const saveCount = cases.filter((c) => c.op === 'save').length;
      const windowStart = (run * 37) % (SAVE_POOL - saveCount + 1);
      let saveIndex = windowStart;
      const plan = cases.map((c) => ({ ...c, target: c.op === 'save' ? savePool[saveIndex++] : undefined }));

      await inPool(plan, CONCURRENCY, async (c, index) => {
        const readBack = index % VIEW_EVERY === 0;
        const { data, stateId } = c.scenario;
        if (c.op === 'create') {
          const key = V.next();
          const text = JSON.stringify({ [c.dataKey]: data }, null, c.pretty ? 2 : undefined);
          const headers: Record<string, string> = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
          if (c.idempotencyKey) headers['Idempotency-Key'] = `${c.idempotencyKey}-${idempotencySeq++}`;
          const res = await tracked('valid create', 'POST', '/scenarios', { raw: text, headers });
          tally.validCreate++;
          expect(res.status, res.text).toBe(201);
          const scenario = res.body.data.scenario;
          expect(res.body.data).toMatchObject({ status: 'success', message: 'Scenario created' });
          expect(scenario.token).toMatch(TOKEN);
          expect(res.headers.get('Location')).toBe(`${BASE}/scenarios/${scenario.token}`);
          expect(res.headers.get('ETag')).toBe('"v1"');
          expectDetail(scenario, data, stateId, scenario.token);
          created.push({ token: scenario.token, data, stateId });
          if (!readBack) return;
          const view = await tracked('view after create', 'GET', `/scenarios/${scenario.token}`, { headers: { Authorization: `Bearer ${V.next()}` } });
          expect(view.status, view.text).toBe(200);
          expect(view.headers.get('ETag')).toBe('"v1"');
          expect(view.body.data).toMatchObject({ status: 'success', message: 'Scenario found' });
          expectDetail(view.body.data.scenario, data, stateId, scenario.token);
          expect(view.body.data.scenario.created_at).toBe(scenario.created_at);
          await expectChart(view.body.data.scenario.chart_img);
        } else {
          const target = c.target!;
          const key = S.next();
          const headers: Record<string, string> = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
          const current = `"v${target.version}"`;
          if (c.ifMatch === 'current') headers['If-Match'] = current;
          if (c.ifMatch === 'star') headers['If-Match'] = '*';
          if (c.ifMatch === 'list') headers['If-Match'] = `"v999999", ${current}`;
          const body = { token: c.tokenAsNumber ? Number(target.token) : target.token, [c.dataKey]: data };
          const res = await tracked('valid save', c.method, '/scenarios/save', { raw: JSON.stringify(body, null, c.pretty ? 1 : undefined), headers });
          tally.validSave++;
          expect(res.status, res.text).toBe(200);
          target.version += 1;
          expect(res.headers.get('ETag')).toBe(`"v${target.version}"`);
          expect(res.body.data).toMatchObject({ status: 'success', message: 'Scenario saved' });
          expectDetail(res.body.data.scenario, data, stateId, target.token);
          expect(res.body.data.scenario.created_at).toBe(target.createdAt);
          saved.push({ token: target.token, data, stateId });
          if (!readBack) return;
          const view = await tracked('view after save', 'GET', `/scenarios/${target.token}`, { headers: { Authorization: `Bearer ${S.next()}` } });
          expect(view.status, view.text).toBe(200);
          expect(view.headers.get('ETag')).toBe(`"v${target.version}"`);
          expectDetail(view.body.data.scenario, data, stateId, target.token);
          await expectChart(view.body.data.scenario.chart_img);
        }
      });

      // Every body read back in the list form, from D1: token a string, state with its slug. The
      // newest page of V is exactly this run's creates; S's window is exactly this run's saves.
      const windowTop = savePool[windowStart]!.id;
      for (const [ring, items, label, query] of [
        [V, created, 'created', `limit=${created.length}`],
        [S, saved, 'saved', `limit=${saved.length}&starting_after=${windowTop + 1}`],
      ] as const) {
        if (items.length === 0) continue;
        const list = await tracked(`list of ${label}`, 'GET', `/scenarios?${query}`, { headers: { Authorization: `Bearer ${ring.next()}` } });
        expect(list.status, list.text).toBe(200);
        expect(list.body.data.map((item: any) => item.token).sort(), `the ${label} scenarios and nothing else`).toEqual(items.map((i) => i.token).sort());
        const byToken = new Map<string, any>(list.body.data.map((item: any) => [item.token, item]));
        for (const { token, data, stateId } of items) {
          const item = byToken.get(token);
          expect(item, `${label} ${token} is listed`).toBeDefined();
          expect(item.user_id).toBe(ring.accountId);
          expect(item.expired).toBeNull();
          expect(item.state).toEqual({ id: stateId, name: stateName(stateId), slug: stateSlug(stateId) });
          expect(item.scenario_data).toEqual(expectedStored(data, token));
        }
      }
    }),
    240_000,
  );
});

// -----------------------------------------------------------------------------------------------
// Mutated bodies

const TYPOS = [
  'Age', 'ages', 'wage', 'wagerate', 'wage rate', 'state_ID', 'stateId', 'States', 'adults', 'children', 'childs', 'program',
  'Year', 'subdivision', 'nick_name', 'is_pregnent', 'scenariodata', 'scenarioData ', 'data', 'constructor', 'prototype',
  'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', '__lookupSetter__', '', ' ', '0', '$where', 'id ', 'token_id',
];

const fieldMutation = fc.record({
  kind: fc.constantFrom('remove', 'retype', 'range', 'unknown', 'proto', 'huge', 'token'),
  a: fc.nat(),
  b: fc.nat(),
  c: fc.nat(),
  name: fc.oneof(fc.constantFrom(...TYPOS), fc.string({ maxLength: 24 }), fc.string({ unit: 'binary', maxLength: 8 })),
  value: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
});
type FieldMutation = ArbValue<typeof fieldMutation>;

const EXCLUSIVE = [
  'deep', 'tooLarge', 'notJson', 'wrongType', 'nonObject', 'dataNotObject', 'bothKeys', 'noData', 'unknownToken', 'preconditionOrHeader',
] as const;
const exclusiveMutation = fc.record({ kind: fc.constantFrom(...EXCLUSIVE), a: fc.nat(), b: fc.nat(), c: fc.nat() });
type ExclusiveMutation = ArbValue<typeof exclusiveMutation>;

const mutatedCase = fc.record({
  scenario: validScenarioData,
  op: fc.constantFrom('create', 'save'),
  dataKey: fc.constantFrom('scenarioData', 'scenario_data'),
  method: fc.constantFrom('POST', 'PUT'),
  tokenAsNumber: fc.boolean(),
  idempotencyKey: fc.option(fc.uuid(), { nil: undefined, freq: 4 }),
  poolIndex: fc.nat(),
  plan: fc.oneof(
    { weight: 4, arbitrary: fc.array(fieldMutation, { minLength: 1, maxLength: 3 }).map((fields) => ({ fields, exclusive: undefined })) },
    { weight: 1, arbitrary: exclusiveMutation.map((exclusive) => ({ fields: [] as FieldMutation[], exclusive })) },
  ),
});
type MutatedCase = ArbValue<typeof mutatedCase>;

const pick = <T>(list: readonly T[], n: number): T => list[n % list.length] as T;

const INT_WRONG: Json[] = ['1', '', 'abc', null, true, false, {}, [], [1], 1.5, -0.5, '2026'];
const AMOUNT_WRONG: Json[] = [null, true, false, {}, [], ['1'], '', ' 1', '1 ', '-1', '+1', '1e3', '1,000', '.5', '5.', '0x1F', 'NaN', 'Infinity', '１２', '1.1234567', '1234567890123', -1, -0.01, 1e21, 1e-7];
const NICK_WRONG: Json[] = [1, 0, null, true, {}, [], ['a']];
const PROGRAMS_WRONG: Json[] = ['snap', null, {}, 5, true, 'snap,eitc'];
const PROGRAM_WRONG: Json[] = [5, null, 'SNAP', 'snap ', ' snap', '', 'medicaid', 'unknown', {}, [], ['snap'], true];
const ARRAY_WRONG: Json[] = [{}, 'x', 5, null, true, { 0: {} }];
const ITEM_WRONG: Json[] = ['x', 5, null, [], true, 0];
const DATA_TOKEN_WRONG: Json[] = [{}, [], true, null, 1.5, 'x'.repeat(65), 2 ** 53, -(2 ** 53)];
const ROOT_TOKEN_WRONG: Json[] = [
  null, {}, [], true, '', '12345678901234', '1234567890123456', '012345678901234', 12345678901234, 1234567890123456, 123456789012345.5,
  ' 123456789012345', '123456789012345 ', 'abcdefghijklmno', -123456789012345, '1.23456789012345e14', '１２３４５６７８９０１２３４５',
];

const RANGE: Record<string, Json[]> = {
  year: [1989, 2101, 0, -1, 1e6, -2026],
  age: [131, -1, 1000, 2 ** 31],
  flag: [2, -1, 3, 255],
  code: [-1, 2 ** 31, 2 ** 53 - 1, -(2 ** 31)],
  hours: ['168.000001', '169', '999', 168.5, 1000, '1234567890123', 168.0001],
  money: ['1234567890123', '1.1234567', '-0', -0.5, 1e12, 1e21, 1e-7, '1e3'],
  sub_division: [0, -1, 2 ** 31, -(2 ** 31)],
  dataToken: ['x'.repeat(65), 2 ** 53, -(2 ** 53)],
};

type TargetKind = FieldKind | 'year' | 'state' | 'programs' | 'program' | 'adult' | 'child' | 'adultItem' | 'childItem' | 'sub_division' | 'dataToken';
interface Target {
  /** Relative to the data object. */
  rel: Path;
  kind: TargetKind;
  required: boolean;
}

/** Every place in these data a mutation can hit. */
function targetsOf(data: Obj): Target[] {
  const out: Target[] = [
    { rel: ['year'], kind: 'year', required: true },
    { rel: ['state_id'], kind: 'state', required: true },
    { rel: ['programs'], kind: 'programs', required: true },
    { rel: ['adult'], kind: 'adult', required: true },
    { rel: ['child'], kind: 'child', required: false },
    { rel: ['sub_division'], kind: 'sub_division', required: false },
    { rel: ['token'], kind: 'dataToken', required: false },
  ];
  if (Array.isArray(data.programs)) data.programs.forEach((_, j) => out.push({ rel: ['programs', j], kind: 'program', required: false }));
  for (const [member, required, optional] of [['adult', ADULT_REQUIRED, ADULT_OPTIONAL], ['child', CHILD_REQUIRED, CHILD_OPTIONAL]] as const) {
    const list = data[member];
    if (!Array.isArray(list)) continue;
    list.forEach((_, i) => {
      out.push({ rel: [member, i], kind: member === 'adult' ? 'adultItem' : 'childItem', required: false });
      for (const f of required) out.push({ rel: [member, i, f], kind: memberFieldKind(member, f), required: true });
      for (const f of optional) out.push({ rel: [member, i, f], kind: memberFieldKind(member, f), required: false });
    });
  }
  return out;
}

const isPrefix = (a: Path, b: Path) => a.length <= b.length && a.every((part, i) => part === b[i]);
const overlaps = (a: Path, b: Path) => isPrefix(a, b) || isPrefix(b, a);

interface Built {
  op: 'create' | 'save';
  method: string;
  path: string;
  raw: string | (() => ReadableStream<Uint8Array>);
  rawLength: number;
  headers: Record<string, string>;
  /**
   * Acceptable outcomes. For a 422 validation_failed, `paths` is the exact sorted list of error
   * paths, 'any' (a non-empty list), or `{under}` (every path at or below that one).
   */
  expect: Array<{ status: number; code: string; paths?: string[] | 'any' | { under: string } }>;
  kinds: string[];
}

/** Applies the mutations of a case to a copy of its body; returns what to send and what must come back. */
function build(c: MutatedCase): Built {
  const op = c.op as 'create' | 'save';
  const P = c.dataKey;
  const data: Obj = structuredClone(c.scenario.data);
  const targetToken = pick(mutationPool, c.poolIndex);
  const body: Obj = op === 'save' ? { token: c.tokenAsNumber ? Number(targetToken) : targetToken, [P]: data } : { [P]: data };
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (op === 'create' && c.idempotencyKey) headers['Idempotency-Key'] = c.idempotencyKey;
  const method = op === 'create' ? 'POST' : c.method;
  const path = op === 'create' ? '/scenarios' : '/scenarios/save';
  const raws = new Map<string, string>();
  const placeholder = (raw: string) => {
    const id = `§§raw-${raws.size}§§`;
    raws.set(id, raw);
    return id;
  };
  const render = () => {
    let text = JSON.stringify(body);
    for (const [id, raw] of raws) text = text.replaceAll(JSON.stringify(id), raw);
    return text;
  };
  const kinds: string[] = [];
  const finish = (expectations: Built['expect'], raw = render()): Built => {
    const rawLength = bytes(raw);
    // A body over the limit is refused as that, whatever else is wrong with it.
    const expectList = rawLength > MAX_BODY ? [{ status: 413, code: 'payload_too_large' }] : expectations;
    return { op, method, path, raw, rawLength, headers, expect: expectList, kinds };
  };

  const claimed: Path[] = [];
  const paths: string[] = [];
  // Paths that only scenarioData's own cross-field check reports (the state rules). zod does not run
  // an object's checks once a list in it is over its size cap (the list is refused unparsed), so
  // these are not expected next to an oversized adult or child list.
  const crossField = new Set<string>();
  let oversizedList = false;
  let hugeUsed = false;
  const claim = (...candidates: Path[]) => {
    if (candidates.some((p) => claimed.some((q) => overlaps(p, q)))) return false;
    claimed.push(...candidates);
    return true;
  };
  const targets = () => targetsOf(data);
  const parentOf = (rel: Path): Obj => rel.slice(0, -1).reduce<any>((o, k) => o[k], data);
  const setRel = (rel: Path, value: unknown) => {
    parentOf(rel)[rel.at(-1) as string] = value;
  };
  const full = (rel: Path) => formatPath([P, ...rel]);
  const memberLocations = (): Path[] => {
    const locs: Path[] = [];
    for (const member of ['adult', 'child']) {
      const list = data[member];
      if (Array.isArray(list)) list.forEach((_, i) => locs.push([member, i]));
    }
    return locs;
  };
  /** Field names known at a location (a path from the body root). */
  const knownAt = (loc: Path): string[] => {
    if (loc.length === 0) return op === 'save' ? ['token', 'scenarioData', 'scenario_data'] : ['scenarioData', 'scenario_data'];
    if (loc.length === 1) return DATA_KEYS;
    return loc[1] === 'adult' ? [...ADULT_REQUIRED, ...ADULT_OPTIONAL] : [...CHILD_REQUIRED, ...CHILD_OPTIONAL];
  };
  // Object locations, as paths from the body root (for unknown and __proto__ keys).
  const locations = (): Path[] => [[], [P], ...memberLocations().map((l) => [P, ...l])];
  const objectAt = (loc: Path): Obj => loc.reduce<any>((o, k) => o[k], body);
  // At least 1,000 characters (so never a valid value); up to 280,000 bytes (so sometimes over the limit).
  const hugeString = (m: FieldMutation) => pick(['x', 'é', '€', '😀', 'a\\"'], m.c).repeat(1_000 + (m.a % 70_000));

  /** Makes the state group exactly one key (`key`), or removes it, so a state mutation has one effect. */
  const setState = (key: 'state_id' | 'state' | null, value?: unknown) => {
    delete data.state_id;
    delete data.state;
    if (key) data[key] = value;
  };

  if (c.plan.exclusive) return buildExclusive(c.plan.exclusive);

  for (const m of c.plan.fields) {
    switch (m.kind) {
      case 'remove': {
        const t = pick(targets().filter((x) => x.required), m.a);
        const claimPath = t.kind === 'state' ? ['§state'] : t.rel;
        if (!claim([P, ...claimPath])) continue;
        if (t.kind === 'state') setState(null);
        else delete parentOf(t.rel)[t.rel.at(-1) as string];
        paths.push(full(t.kind === 'state' ? ['state_id'] : t.rel));
        if (t.kind === 'state') crossField.add(full(['state_id']));
        break;
      }
      case 'retype':
      case 'range': {
        const t = pick(targets(), m.a);
        if (!claim([P, ...(t.kind === 'state' ? ['§state'] : t.rel)])) continue;
        const rel = t.rel;
        let value: unknown;
        const k = t.kind;
        if (m.kind === 'range' && k === 'state') {
          const variant = m.b % 3;
          if (variant === 0) {
            const key = m.c % 2 ? 'state_id' : 'state';
            const value = pick([...NOT_FIPS, 0, -1, 2 ** 31], m.c >> 1);
            setState(key, value);
            paths.push(full([key]));
            if ((NOT_FIPS as readonly number[]).includes(value)) crossField.add(full([key]));
          } else if (variant === 1) {
            const a = pick(FIPS, m.c);
            const b = pick(FIPS.filter((x) => x !== a), m.c >> 3);
            data.state_id = a;
            data.state = b;
            paths.push(full(['state']));
            crossField.add(full(['state']));
          } else {
            setState('state_id', pick(NOT_FIPS, m.c));
            paths.push(full(['state_id']));
            crossField.add(full(['state_id']));
          }
          break;
        }
        if (m.kind === 'range' && k === 'programs') {
          const programs = data.programs as string[];
          const variant = m.b % 3;
          if (variant === 0) {
            data.programs = [];
            paths.push(full(['programs']));
          } else if (variant === 1) {
            const dup = pick(programs, m.c);
            if (programs.length <= 18) {
              programs.push(dup);
              paths.push(full(['programs', programs.length - 1]));
            } else {
              programs[programs.length - 1] = programs[0] as string;
              paths.push(full(['programs', programs.length - 1]));
            }
          } else {
            const j = m.c % programs.length;
            programs[j] = pick(['unknown', 'SNAP', 'medicaid', 'snap_', 'eitc ', 'tanf\u0000'], m.b);
            paths.push(full(['programs', j]));
          }
          break;
        }
        if (m.kind === 'range' && (k === 'adult' || k === 'child')) {
          const list = (data[k] as Obj[] | undefined) ?? [];
          if (k === 'adult' && m.b % 2 === 0) data.adult = [];
          else {
            const template: Obj = { ...(list[0] ?? (k === 'adult' ? seedData().adult[0] : childTemplate())) };
            delete template.id;
            data[k] = Array.from({ length: 21 + (m.c % 5) }, () => ({ ...template }));
            oversizedList = true;
          }
          paths.push(full([k]));
          break;
        }
        if (m.kind === 'range' && k === 'id') {
          const index = rel[1] as number;
          value = pick([index + 2, 0, -1, 21, 100], m.b);
        } else if (m.kind === 'range' && k === 'nickname') {
          // 101 or more characters (code points: 101 emoji are 202 UTF-16 units, 101 characters).
          value = pick(['x', 'é', 'Ж', '😀'], m.c).repeat(101 + (m.b % 300));
        } else if (m.kind === 'range' && RANGE[k] !== undefined) {
          value = pick(RANGE[k], m.b);
        } else if (k === 'state') {
          const key = m.c % 2 ? 'state_id' : 'state';
          setState(key, pick(INT_WRONG, m.b));
          paths.push(full([key]));
          break;
        } else if (['year', 'age', 'flag', 'code', 'id', 'sub_division'].includes(k)) value = pick(INT_WRONG, m.b);
        else if (k === 'money' || k === 'hours') value = pick(AMOUNT_WRONG, m.b);
        else if (k === 'nickname') value = pick(NICK_WRONG, m.b);
        else if (k === 'programs') value = pick(PROGRAMS_WRONG, m.b);
        else if (k === 'program') value = pick(PROGRAM_WRONG, m.b);
        else if (k === 'adult' || k === 'child') value = pick(ARRAY_WRONG, m.b);
        else if (k === 'adultItem' || k === 'childItem') value = pick(ITEM_WRONG, m.b);
        else if (k === 'dataToken') value = pick(DATA_TOKEN_WRONG, m.b);
        else throw new Error(`no wrong value for ${k}`);
        setRel(rel, value);
        paths.push(full(rel));
        break;
      }
      case 'unknown': {
        const loc = pick(locations(), m.a);
        let name = m.name;
        while (knownAt(loc).includes(name) || name === '__proto__') {
          name += '_x';
        }
        if (!claim([...loc, name])) continue;
        objectAt(loc)[name] = m.value;
        paths.push(formatPath([...loc, name]));
        break;
      }
      case 'proto': {
        const loc = pick(locations(), m.a);
        if (!claim([...loc, '__proto__'])) continue;
        const target = objectAt(loc);
        const variant = m.b % 3;
        let inner: Json = variant === 0 ? {} : { polluted: true, isAdmin: true };
        if (variant === 2) {
          // Smuggle a required field under __proto__: it must still count as missing.
          const required = loc.length === 0 ? (op === 'save' ? [P, 'token'] : [P]) : loc.length === 1 ? ['year', 'programs', 'adult'] : loc[1] === 'adult' ? ADULT_REQUIRED : CHILD_REQUIRED;
          const field = pick(required, m.c);
          if (!claim([...loc, field])) continue;
          inner = { [field]: target[field] as Json };
          delete target[field];
          // A missing data key is reported as scenarioData, whichever name the body used.
          paths.push(loc.length === 0 && field === P ? 'scenarioData' : formatPath([...loc, field]));
        }
        const id = placeholder('"__proto__"');
        target[id] = inner;
        // The placeholder is a key here: its quoted form is replaced by the quoted __proto__.
        paths.push(formatPath([...loc, '__proto__']));
        break;
      }
      case 'huge': {
        if (hugeUsed) continue;
        const where = m.b % 5;
        const text = hugeString(m);
        if (where === 0) {
          // A huge unknown key name.
          const loc = pick(locations(), m.c);
          const name = `k${text}`;
          if (!claim([...loc, name])) continue;
          objectAt(loc)[name] = 1;
          paths.push(formatPath([...loc, name]));
        } else {
          const candidates = targets().filter((t) =>
            where === 1 ? t.kind === 'nickname' : where === 2 ? t.kind === 'money' || t.kind === 'hours' : where === 3 ? t.kind === 'program' : t.kind === 'dataToken',
          );
          if (candidates.length === 0) continue;
          const t = pick(candidates, m.c);
          if (!claim([P, ...t.rel])) continue;
          setRel(t.rel, where === 2 ? '9'.repeat(text.length) : text);
          paths.push(full(t.rel));
        }
        hugeUsed = true;
        break;
      }
      case 'token': {
        if (!claim(['token'])) continue;
        if (op === 'save' && m.b % 4 === 0) delete body.token;
        else body.token = pick(ROOT_TOKEN_WRONG, m.c) as Json;
        paths.push('token');
        break;
      }
    }
    kinds.push(m.kind);
  }
  if (paths.length === 0) {
    // Every mutation collided with an earlier one: fall back to a missing year.
    delete data.year;
    paths.push(full(['year']));
    kinds.push('remove');
  }
  const expected = oversizedList ? paths.filter((p) => !crossField.has(p)) : paths;
  return finish([{ status: 422, code: 'validation_failed', paths: [...expected].sort() }]);

  function buildExclusive(x: ExclusiveMutation): Built {
    kinds.push(x.kind);
    switch (x.kind) {
      case 'deep': {
        const t = pick(targetsOf(data), x.a);
        const objects = x.b % 2 === 1;
        const depth = 10 + (x.c % (objects ? 45_000 : 140_000));
        const raw = objects ? '{"a":'.repeat(depth) + '0' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth);
        if (t.kind === 'state') setState('state_id', placeholder(raw));
        else setRel(t.rel, placeholder(raw));
        // The nesting replaces a value: every error is about it (an array in place of an array
        // fails at its first element, an object in place of an adult at its fields).
        return finish([
          { status: 422, code: 'validation_failed', paths: { under: full(t.kind === 'state' ? ['state_id'] : t.rel) } },
          { status: 400, code: 'invalid_json' },
        ]);
      }
      case 'tooLarge': {
        const json = render();
        const over = MAX_BODY + 1 + (x.a % 200_000) - bytes(json);
        const variant = x.b % 4;
        if (variant === 3) {
          // Streamed in chunks, without Content-Length.
          const text = ' '.repeat(Math.max(0, over)) + json;
          const chunk = new TextEncoder().encode(text);
          return {
            ...finish([{ status: 413, code: 'payload_too_large' }], text),
            raw: () =>
              new ReadableStream<Uint8Array>({
                start(controller) {
                  for (let i = 0; i < chunk.length; i += 16_384) controller.enqueue(chunk.slice(i, i + 16_384));
                  controller.close();
                },
              }),
          };
        }
        if (variant === 2) {
          // Multi-byte characters: fewer characters than bytes.
          (data as Obj).nickname_of_household = '€'.repeat(Math.ceil(Math.max(over, 3) / 3) + 30);
          return finish([{ status: 413, code: 'payload_too_large' }]);
        }
        const pad = ' \n\t'.charAt(x.c % 3).repeat(Math.max(0, over));
        return finish([{ status: 413, code: 'payload_too_large' }], variant === 0 ? pad + json : json + pad);
      }
      case 'notJson': {
        const json = render();
        const variants = [
          json.slice(0, 1 + (x.a % (json.length - 1))),
          `${json}}`,
          `${json},`,
          json.replaceAll('"', "'"),
          '',
          'NaN',
          `{"${P}": }`,
          `{${P}: 1}`,
          json.replace(/:/, '::'),
          'null null',
          '\u0000',
        ];
        return finish([{ status: 400, code: 'invalid_json' }], pick(variants, x.b));
      }
      case 'wrongType': {
        const type = pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'text/json', 'json', 'application/jsonp'], x.b);
        headers['Content-Type'] = type;
        return finish([{ status: 400, code: 'invalid_json' }, { status: 415, code: 'unsupported_media_type' }]);
      }
      case 'nonObject': {
        const value = pick([[], [body], 'scenario', 5, null, true, false, 0], x.b);
        return finish([{ status: 422, code: 'validation_failed', paths: 'any' }], JSON.stringify(value));
      }
      case 'dataNotObject': {
        body[P] = pick(['x', 5, [], [data], true, null, 0, ''], x.b);
        return finish([{ status: 422, code: 'validation_failed', paths: [P] }]);
      }
      case 'bothKeys': {
        body.scenarioData = data;
        body.scenario_data = data;
        return finish([{ status: 422, code: 'validation_failed', paths: ['scenario_data'] }]);
      }
      case 'noData': {
        delete body[P];
        return finish([{ status: 422, code: 'validation_failed', paths: ['scenarioData'] }]);
      }
      case 'unknownToken': {
        if (op === 'create') {
          // A create has no token to get wrong: a token at its root is an unknown field.
          body.token = targetToken;
          return finish([{ status: 422, code: 'validation_failed', paths: ['token'] }]);
        }
        let token = String(100_000_000_000_000 + (x.a * 7919 + x.b) % 899_999_999_999_999);
        if (mutationPool.includes(token)) token = String(Number(token) + 1);
        body.token = x.c % 2 ? Number(token) : token;
        return finish([{ status: 404, code: 'not_found' }]);
      }
      case 'preconditionOrHeader': {
        if (op === 'create') {
          headers['Idempotency-Key'] = x.b % 3 === 0 ? '' : 'k'.repeat(256 + (x.a % 2000));
          return finish([{ status: 400, code: 'invalid_header' }]);
        }
        // The pool's scenarios are never saved, so they stay at version 1.
        // Well-formed tags that name no stored version are 412; a malformed header (unquoted) is 400.
        const ifMatch = pick(['"v2"', '"v999"', 'W/"v1"', '"1"', '"v01"', 'v1', '"V1"', '""', '"v1" x', 'W/"v1", "v2"'], x.b);
        headers['If-Match'] = ifMatch;
        if (ifMatch === 'v1' || ifMatch === '"v1" x') return finish([{ status: 400, code: 'invalid_header' }]);
        return finish([{ status: 412, code: 'precondition_failed' }]);
      }
    }
    throw new Error(`unknown mutation ${x.kind}`);
  }
}

function childTemplate(): Obj {
  return {
    age: 6, sex: 1, caretaker: 1, in_school: 1, yes_or_no: 1, is_disabled: 0, cc_rate_category: 2, child_care_setting: 1,
    relation_to_caretaker: 1, same_legal_hh_fed_state: 1, purchase_and_prepare_meals_together: 1,
  };
}

function checkRefusal(built: Built, res: Reply): void {
  const what = `${built.method} ${built.path} [${built.kinds.join(',')}] (${built.rawLength} bytes) → ${res.status} ${res.text.slice(0, 400)}`;
  const match = built.expect.find((e) => e.status === res.status);
  expect(match, `${what}; expected ${built.expect.map((e) => e.status).join(' or ')}`).toBeDefined();
  expectProblem(res, match!.status, match!.code);
  if (match!.status === 422 && match!.code === 'validation_failed') {
    const errors = res.body.errors as Array<{ path: unknown; message: unknown }>;
    expect(Array.isArray(errors) && errors.length > 0, what).toBe(true);
    for (const e of errors) {
      expect(typeof e.path, what).toBe('string');
      expect(typeof e.message === 'string' && e.message.length > 0, what).toBe(true);
    }
    const got = errors.map((e) => e.path as string).sort();
    const want = match!.paths;
    if (Array.isArray(want)) expect(got, what).toEqual(want);
    else if (want !== undefined && want !== 'any') {
      for (const p of got) expect(p === want.under || p.startsWith(`${want.under}.`) || p.startsWith(`${want.under}[`), `${what}: ${p} is not under ${want.under}`).toBe(true);
    }
  }
}

describe('mutated scenarioData', () => {
  test.prop([fc.array(mutatedCase, { minLength: MUTATED_BATCH, maxLength: MUTATED_BATCH })], { numRuns: MUTATED_RUNS, endOnFailure: true })(
    'is refused with a 4xx problem naming every bad path, and changes nothing',
    reportable(async (cases) => {
      const before = await accountRows(M.accountId);
      await inPool(cases, CONCURRENCY, async (c) => {
        const built = build(c);
        const headers = { ...built.headers, Authorization: `Bearer ${M.next()}` };
        const raw = typeof built.raw === 'function' ? built.raw() : built.raw;
        const res = await tracked(`mutated ${built.op} [${built.kinds.join(',')}]`, built.method, built.path, { raw, headers });
        if (built.op === 'create') tally.mutatedCreate++;
        else tally.mutatedSave++;
        for (const k of built.kinds) count(k);
        checkRefusal(built, res);
      });
      expect(await accountRows(M.accountId)).toEqual(before);
      // No __proto__ key reached a prototype.
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    }),
    240_000,
  );
});

describe('body size limit', () => {
  const padded = (size: number, fill: string) => {
    const json = JSON.stringify({ scenarioData: seedData() });
    const filler = fill.repeat(Math.ceil((size - bytes(json)) / bytes(fill)));
    const text = json + filler;
    return text.slice(0, text.length - (bytes(text) - size) / bytes(fill));
  };

  it.each([' ', '\n'])('accepts a body of exactly 256 KiB and refuses one byte more (filler %j)', async (fill) => {
    const key = M.next();
    const exact = padded(MAX_BODY, fill);
    expect(bytes(exact)).toBe(MAX_BODY);
    const ok = await api(key).send('POST', '/scenarios', { raw: exact, headers: { 'Content-Type': 'application/json' } });
    expect(ok.status, ok.text).toBe(201);
    await api(key).delete(`/scenarios/${ok.body.data.scenario.token}`);
    const before = await accountRows(M.accountId);
    const over = await api(key).send('POST', '/scenarios', { raw: exact + fill, headers: { 'Content-Type': 'application/json' } });
    expectProblem(over, 413, 'payload_too_large');
    expect(await accountRows(M.accountId)).toEqual(before);
  });

  it('counts bytes, not characters', async () => {
    const key = M.next();
    // 90,000 "€" are 90,000 characters but 270,000 bytes.
    const text = JSON.stringify({ scenarioData: { ...seedData(), adult: [{ ...seedData().adult[0], nickname: '€'.repeat(90_000) }] } });
    expect(text.length).toBeLessThan(MAX_BODY);
    expect(bytes(text)).toBeGreaterThan(MAX_BODY);
    expectProblem(await api(key).send('POST', '/scenarios', { raw: text, headers: { 'Content-Type': 'application/json' } }), 413, 'payload_too_large');
  });
});

// -----------------------------------------------------------------------------------------------
// Authorization header

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
/** The README's checksum: CRC-32 of `scn_` + 30 characters, as 6 base62 digits. */
function checksum(body: string): string {
  let crc = 0xffffffff;
  for (let i = 0; i < body.length; i++) crc = (CRC_TABLE[(crc ^ body.charCodeAt(i)) & 0xff] as number) ^ (crc >>> 8);
  let n = (crc ^ 0xffffffff) >>> 0;
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

const base62 = (length: number) => fc.string({ unit: fc.constantFrom(...BASE62), minLength: length, maxLength: length });
/** Header values can carry bytes 0x09, 0x20–0x7E and 0x80–0xFF; UTF-8 arrives as such bytes. */
const headerChar = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constant(0x09)).map((c) => String.fromCharCode(c));
const headerText = (maxLength: number) => fc.string({ unit: headerChar, maxLength });
/** The UTF-8 bytes of a string as a header value carries them (control characters dropped: no header may hold them). */
const noControls = (s: string) => s.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '');
const utf8AsBytes = (s: string) => noControls(String.fromCharCode(...new TextEncoder().encode(s)));

let realKey = '';
let revokedKey = '';
let readRing: KeyRing;

const flipped = fc.record({ at: fc.nat(), to: fc.constantFrom(...BASE62) }).map(({ at, to }) => {
  const i = at % realKey.length;
  const original = realKey.charAt(i);
  const replacement = to === original ? BASE62.charAt((BASE62.indexOf(to) + 1) % 62) : to;
  return `Bearer ${realKey.slice(0, i)}${replacement}${realKey.slice(i + 1)}`;
});

const authorizationValue: fc.Arbitrary<{ label: string; value: string }> = fc.oneof(
  { weight: 3, arbitrary: headerText(200).map((value) => ({ label: 'random', value })) },
  { weight: 3, arbitrary: headerText(200).map((value) => ({ label: 'bearer random', value: `Bearer ${value}` })) },
  { weight: 3, arbitrary: base62(36).map((k) => ({ label: 'scn_ random checksum', value: `Bearer scn_${k}` })) },
  { weight: 3, arbitrary: base62(30).map((k) => ({ label: 'scn_ valid checksum, unknown', value: `Bearer scn_${k}${checksum(`scn_${k}`)}` })) },
  { weight: 3, arbitrary: flipped.map((value) => ({ label: 'real key, one char flipped', value })) },
  { weight: 3, arbitrary: fc.constantFrom(
    () => `Basic ${realKey}`,
    () => `Token ${realKey}`,
    () => realKey,
    () => `Bearer${realKey}`,
    () => `Bearer: ${realKey}`,
    () => `Bearer "${realKey}"`,
    () => `Bearer ${realKey}, Bearer ${realKey}`,
    () => `Bearer ${realKey} ${realKey}`,
    () => `Bearer ${realKey}x`,
    () => `Bearer ${realKey.slice(0, -1)}`,
    () => `Bearer ${realKey.toUpperCase()}`,
    () => `Bearer SCN_${realKey.slice(4)}`,
    () => `Bearer ${realKey.slice(4)}`,
    () => `Bearer%20${realKey}`,
    () => `Bearer ${encodeURIComponent(realKey + '=')}`,
    () => `Bearer ${btoa(realKey)}`,
    () => `Bearer ${revokedKey}`,
    () => `Bearer ${'scn_'.padEnd(40, 'A')}`,
    () => 'Bearer',
    () => 'Bearer ',
    () => '',
    () => 'Bearer undefined',
    () => 'Bearer null',
  ).map((f) => ({ label: 'near miss', value: f() })) },
  // Non-ASCII values (workerd warns about each one on the console, so only about one in twenty).
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map((s) => ({ label: 'unicode', value: noControls(`Bearer scn_${s}`) })) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map((s) => ({ label: 'unicode as UTF-8 bytes', value: utf8AsBytes(`Bearer ${s}`) })) },
  { weight: 3, arbitrary: fc.integer({ min: 1_000, max: 100_000 }).map((n) => ({ label: 'very long', value: `Bearer scn_${'A'.repeat(n)}` })) },
);

const authRoute = fc.constantFrom(
  { method: 'GET', path: '/scenarios' },
  { method: 'GET', path: '/me' },
  { method: 'GET', path: '/scenarios/123456789012345' },
  { method: 'DELETE', path: '/scenarios/123456789012345' },
  { method: 'POST', path: '/scenarios' },
  { method: 'PUT', path: '/scenarios/save' },
);

let authRuns = 0;
const AUTH_RUNS = 600;

describe('random Authorization headers', () => {
  beforeAll(async () => {
    const { key, account } = await createAccountWithKey();
    realKey = key;
    const revoked = await createKey(account.id);
    revokedKey = revoked.key;
    const res = await send('DELETE', `/admin/keys/${revoked.id}`, { headers: { Authorization: 'Bearer test-admin-token-0123456789abcdefghijklmnop' } });
    expect(res.status, res.text).toBe(200);
  });

  it('the real key itself works (so the refusals below mean something)', async () => {
    expect((await api(realKey).get('/me')).status).toBe(200);
  });

  test.prop([authorizationValue, authRoute], { numRuns: AUTH_RUNS })(
    'are all refused with 401 (or 429 when an address is throttled), never 5xx',
    async ({ label, value }, route) => {
      authRuns++;
      const body = route.method === 'POST' ? { scenarioData: seedData() } : route.method === 'PUT' ? { token: '123456789012345', scenarioData: seedData() } : undefined;
      const res = await tracked(`auth ${label}`, route.method, route.path, { headers: { Authorization: value, ...freshAddress() }, body });
      expect([401, 429], `${label}: ${JSON.stringify(value.slice(0, 80))} → ${res.status} ${res.text}`).toContain(res.status);
      if (res.status === 401) expectUnauthorized(res);
      else expectProblem(res, 429, 'rate_limited');
    },
    120_000,
  );

  it(`ran at least 500 (${AUTH_RUNS} planned)`, () => {
    expect(authRuns).toBeGreaterThanOrEqual(500);
  });
});

// -----------------------------------------------------------------------------------------------
// List queries and scenario paths

let listRing: KeyRing;
let ids: number[] = []; // the list account's item ids, newest first
let listTokens: string[] = [];
let otherToken = '';

const KNOWN_PARAMS = ['limit', 'starting_after', 'endding_before', 'ending_before'];

const cursorValue = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: 40 }).map((i) => ({ kind: 'item', i })) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 9_999_999_999_999_999 }).map((n) => ({ kind: 'raw', text: String(n) })) },
  { weight: 1, arbitrary: fc.constantFrom('1', '9999999999999999', '0', '-1', '01', '1.5', '1e3', '', ' 1', '10000000000000000', 'abc', '0x10', '１').map((text) => ({ kind: 'raw', text })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((text) => ({ kind: 'raw', text })) },
);
const limitValue = fc.oneof(
  fc.integer({ min: 1, max: 100 }).map(String),
  fc.constantFrom('0', '101', '1000', '-1', '1.0', '', '007', '010', '0100', ' 5', '5 ', 'ten', '1e1', '99999999999'),
  fc.string({ maxLength: 6 }),
);
const queryPart = fc.oneof(
  { weight: 3, arbitrary: fc.record({ name: fc.constant('limit'), value: limitValue }) },
  { weight: 3, arbitrary: fc.record({ name: fc.constantFrom('starting_after', 'endding_before', 'ending_before'), value: cursorValue }) },
  { weight: 1, arbitrary: fc.record({ name: fc.oneof(fc.constantFrom('Limit', 'LIMIT', 'limt', 'cursor', 'page', 'startingAfter', 'ending-before', 'limit[]', 'offset', '__proto__', 'constructor'), fc.string({ maxLength: 10 })), value: fc.string({ maxLength: 10 }) }) },
);
const listQuery = fc.record({ parts: fc.array(queryPart, { maxLength: 4 }), encodeNames: fc.boolean() });

/** The page the contract promises for this query, or 'invalid' for a 400. */
function expectedPage(params: Map<string, string[]>): 'invalid' | { data: number[]; has_more: boolean } {
  for (const [name, values] of params) if (name !== '' && (!KNOWN_PARAMS.includes(name) || values.length !== 1)) return 'invalid';
  const get = (name: string) => params.get(name)?.[0];
  const limitText = get('limit');
  if (limitText !== undefined && !(/^[0-9]{1,3}$/.test(limitText) && Number(limitText) >= 1 && Number(limitText) <= 100)) return 'invalid';
  for (const name of ['starting_after', 'endding_before', 'ending_before']) {
    const v = get(name);
    if (v !== undefined && !/^[1-9][0-9]{0,15}$/.test(v)) return 'invalid';
  }
  const misspelt = get('endding_before');
  const spelt = get('ending_before');
  if (misspelt !== undefined && spelt !== undefined && misspelt !== spelt) return 'invalid';
  const before = misspelt ?? spelt;
  const after = get('starting_after');
  if (after !== undefined && before !== undefined) return 'invalid';
  const limit = limitText === undefined ? 10 : Number(limitText);
  if (before !== undefined) {
    const newer = ids.filter((id) => id > Number(before)).reverse(); // oldest first
    return { data: newer.slice(0, limit).reverse(), has_more: newer.length > limit };
  }
  const older = after === undefined ? ids : ids.filter((id) => id < Number(after));
  return { data: older.slice(0, limit), has_more: older.length > limit };
}

const segment = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.stringMatching(/^[0-9]{1,20}$/) },
  { weight: 2, arbitrary: fc.stringMatching(/^[1-9][0-9]{14}$/) },
  { weight: 1, arbitrary: fc.nat({ max: 40 }).map((i) => `§own${i}`) },
  { weight: 1, arbitrary: fc.constantFrom('§other', 'save', 'delete', 'chart.svg', '0', '-1', '123456789012345.0', ' 123456789012345', '%', '%zz', 'null', 'undefined') },
).filter((s) => s !== '' && s !== '.' && s !== '..');

describe('random list queries and scenario paths', () => {
  beforeAll(async () => {
    listRing = await accountWithKeys(4);
    const created = await inPool(Array.from({ length: 25 }), 5, () => createRaw(listRing, seedData()));
    listTokens = created.map((s) => s.token);
    const all = await api(listRing.next()).get('/scenarios?limit=100');
    ids = all.body.data.map((item: any) => item.id);
    expect(ids).toHaveLength(25);
    const { key: otherKey } = await createAccountWithKey();
    otherToken = (await createRaw(new KeyRing(0, [otherKey]), seedData())).token;
  }, 60_000);

  let queryRuns = 0;
  test.prop([listQuery], { numRuns: 600 })(
    'GET /scenarios answers 200 with exactly the promised page, or 400 invalid_query',
    async ({ parts, encodeNames }) => {
      queryRuns++;
      const params = new Map<string, string[]>();
      const pieces: string[] = [];
      for (const { name, value } of parts) {
        const text = typeof value === 'string' ? value : value.kind === 'item' ? String(ids[(value as any).i % ids.length] ?? 1) : (value as any).text;
        params.set(name, [...(params.get(name) ?? []), text]);
        const encodedName = encodeNames ? [...name].map((ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`).join('') : encodeURIComponent(name);
        pieces.push(`${name.length > 0 && /^[\x00-\x7f]*$/.test(name) ? encodedName : encodeURIComponent(name)}=${encodeURIComponent(text)}`);
      }
      const query = pieces.length ? `?${pieces.join('&')}` : '';
      const res = await tracked('query', 'GET', `/scenarios${query}`, { headers: { Authorization: `Bearer ${listRing.next()}` } });
      const expected = expectedPage(params);
      if (expected === 'invalid') {
        expectProblem(res, 400, 'invalid_query');
        expect(Array.isArray(res.body.errors) && res.body.errors.length > 0, res.text).toBe(true);
      } else {
        expect(res.status, `${query} → ${res.text.slice(0, 300)}`).toBe(200);
        expect({ data: res.body.data.map((item: any) => item.id), has_more: res.body.has_more }, query).toEqual(expected);
      }
    },
    120_000,
  );

  let pathRuns = 0;
  test.prop([segment, fc.constantFrom('GET /x', 'DELETE /x', 'DELETE /x/delete', 'GET /x/delete', 'POST /x')], { numRuns: 600 })(
    'GET/DELETE /scenarios/<x> and /scenarios/<x>/delete answer only 200, 404 or 405 as the contract says',
    async (raw, shape) => {
      const x = raw.startsWith('§own') ? (listTokens[Number(raw.slice(4)) % listTokens.length] as string) : raw === '§other' ? otherToken : raw;
      const own = listTokens.includes(x);
      const [method, template] = shape.split(' ') as [string, string];
      // Never delete the list account's own scenarios: the query property above counts on them.
      if (own && method === 'DELETE') return;
      pathRuns++;
      const path = `/scenarios${template.replace('x', encodeURIComponent(x))}`;
      const res = await tracked('path', method, path, { headers: { Authorization: `Bearer ${listRing.next()}` } });
      const tokenShaped = /^[1-9][0-9]{14}$/.test(x);
      let expected: number;
      if (template === '/x') {
        // POST /scenarios/save without a body: no token, no scenarioData.
        if (x === 'save') expected = method === 'POST' ? 422 : 405;
        else if (method === 'POST') expected = tokenShaped ? 405 : 404;
        else expected = own ? 200 : 404;
      } else {
        expected = !tokenShaped ? 404 : method === 'DELETE' ? 404 : 405;
      }
      expect(res.status, `${method} ${path} → ${res.text.slice(0, 300)}`).toBe(expected);
      if (expected === 422) expectProblem(res, 422, 'validation_failed');
      if (expected === 200) expect(res.body.data.scenario.token).toBe(x);
      else if (expected === 404) expectProblem(res, 404, 'not_found');
      else if (expected === 405) {
        expectProblem(res, 405, 'method_not_allowed');
        expect(res.headers.get('Allow')).toBeTruthy();
      }
    },
    120_000,
  );

  it('ran at least 500 queries and 500 paths', () => {
    expect(queryRuns).toBeGreaterThanOrEqual(500);
    expect(pathRuns).toBeGreaterThanOrEqual(500);
  });
});

describe('totals', () => {
  it('sent at least 10,000 scenarioData bodies, and nothing answered 5xx', () => {
    const bodies = tally.validCreate + tally.validSave + tally.mutatedCreate + tally.mutatedSave;
    expect(bodies).toBeGreaterThanOrEqual(10_000);
    expect(tally.statuses.fiveXX).toEqual([]);
  });
});
