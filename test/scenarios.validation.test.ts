// The scenarioData rules of docs/decisions.md and every field of the spec's Adult and Child tables,
// through POST /scenarios (and POST/PUT /scenarios/save). Every refusal is a 422 problem that names
// each bad field by its path, and changes nothing.
import { beforeEach, describe, expect, it } from 'vitest';
import { adult, api, child, createAccountWithKey, createScenario, scenarioData } from './helpers/api.ts';
import {
  accepted,
  expectValidationFailed,
  pathsOf,
  refusedCreate,
  refusedCreateRaw,
  refusedSave,
  SPEC_PROGRAMS,
  withAdult,
  withChild,
  without,
} from './helpers/scenarios.ts';

const ADULT_MONEY = ['wage_rate', 'unemp_comp', 'monthly_ssi', 'child_support', 'other_unearned', 'monthly_disability', 'soc_sec_retirement'];
const ADULT_HOURS = ['work_hours_per_week', 'training_hours_per_week'];
const ADULT_AMOUNTS = [...ADULT_MONEY, ...ADULT_HOURS];
const ADULT_FLAGS = ['yes_or_no', 'is_married', 'is_veteran', 'is_pregnant', 'same_snap_household', 'is_spouse_in_household', 'same_legal_hh_fed_state'];
const ADULT_CODES = ['adult_type', 'aged_or_disability_income'];
const CHILD_FLAGS = ['yes_or_no', 'is_disabled', 'same_legal_hh_fed_state', 'purchase_and_prepare_meals_together'];
const CHILD_CODES = ['sex', 'caretaker', 'in_school', 'cc_rate_category', 'child_care_setting', 'relation_to_caretaker'];

const fill = (fields: string[], value: unknown) => Object.fromEntries(fields.map((f) => [f, value]));
const adultPaths = (fields: string[], i = 0) => fields.map((f) => `scenarioData.adult[${i}].${f}`);
const childPaths = (fields: string[], i = 0) => fields.map((f) => `scenarioData.child[${i}].${f}`);
const create = (data: Record<string, unknown>) => ({ scenarioData: data });

let key: string;
beforeEach(async () => {
  ({ key } = await createAccountWithKey());
});

describe('required fields', () => {
  it('refuses a body without scenarioData', async () => {
    expect(await refusedCreate(key, {})).toEqual(['scenarioData']);
  });

  it('refuses scenarioData that is not an object', async () => {
    expect(await refusedCreate(key, { scenarioData: [scenarioData()] })).toEqual(['scenarioData']);
    expect(await refusedCreate(key, { scenarioData: 'year=2026' })).toEqual(['scenarioData']);
  });

  it.each(['year', 'programs', 'adult'])('refuses scenarioData without %s', async (field) => {
    expect(await refusedCreate(key, create(without(scenarioData(), [field])))).toEqual([`scenarioData.${field}`]);
  });

  it('says "is required" of every missing adult and child field, and keeps the bad value\'s own message', async () => {
    const res = await api(key).post('/scenarios', create({ ...scenarioData(), adult: [{}], child: [{}] }));
    const errors = expectValidationFailed(res);
    const required = [...adultPaths([...ADULT_AMOUNTS, ...ADULT_FLAGS.filter((f) => f !== 'is_pregnant'), ...ADULT_CODES, 'age']), ...childPaths([...CHILD_FLAGS, ...CHILD_CODES, 'age'])];
    expect(errors.map((e) => e.path).sort()).toEqual(required.sort());
    for (const error of errors) expect(error.message, error.path).toBe('is required');
    // A value that is there but wrong keeps its own words.
    const wrong = expectValidationFailed(await api(key).post('/scenarios', create(withAdult({ yes_or_no: 2, wage_rate: '-1' }))));
    expect(wrong.map((e) => e.message).sort()).toEqual(['must be 0 or 1', expect.stringMatching(/^must be a non-negative decimal number/)]);
    const save = expectValidationFailed(await api(key).post('/scenarios/save', { scenarioData: scenarioData() }));
    expect(save).toEqual([{ path: 'token', message: 'is required' }]);
  });

  it('refuses scenarioData without state_id or its synonym state', async () => {
    expect(await refusedCreate(key, create(without(scenarioData(), ['state_id'])))).toEqual(['scenarioData.state_id']);
  });

  it('accepts state as a synonym of state_id', async () => {
    const scenario = await accepted(key, { ...without(scenarioData(), ['state_id']), state: 6 });
    expect(scenario.state).toEqual({ id: 6, name: 'California' });
    expect(scenario.scenario_data.state).toBe(6);
    expect(scenario.scenario_data).not.toHaveProperty('state_id');
  });

  it('defaults child to []', async () => {
    const scenario = await accepted(key, without(scenarioData(), ['child']));
    expect(scenario.scenario_data.child).toEqual([]);
  });

  it('accepts scenarioData without sub_division', async () => {
    const scenario = await accepted(key, without(scenarioData(), ['sub_division']));
    expect(scenario.scenario_data.year).toBe(2026);
  });
});

describe('year', () => {
  it.each([1990, 2100])('accepts year %s', async (year) => {
    expect((await accepted(key, scenarioData({ year }))).scenario_data.year).toBe(year);
  });

  it.each([1989, 2101, 0, -2026, 2026.5, '2026', null])('refuses year %j', async (year) => {
    expect(await refusedCreate(key, create(scenarioData({ year })))).toEqual(['scenarioData.year']);
  });
});

describe('state_id', () => {
  it.each([3, 7, 14, 43, 52, 57, 72, 99, 0, -36])('refuses unknown state_id %s', async (state_id) => {
    expect(await refusedCreate(key, create(scenarioData({ state_id })))).toEqual(['scenarioData.state_id']);
  });

  it.each(['36', 36.5, null, { id: 36 }])('refuses state_id %j that is not an integer', async (state_id) => {
    expect(await refusedCreate(key, create(scenarioData({ state_id })))).toEqual(['scenarioData.state_id']);
  });

  it('refuses an unknown state given as the synonym state', async () => {
    expect(await refusedCreate(key, create({ ...without(scenarioData(), ['state_id']), state: 3 }))).toEqual(['scenarioData.state']);
  });

  it('accepts state_id and state when they agree', async () => {
    const scenario = await accepted(key, scenarioData({ state_id: 36, state: 36 }));
    expect(scenario.state).toEqual({ id: 36, name: 'New York' });
  });

  it('refuses state_id and state that disagree', async () => {
    const paths = await refusedCreate(key, create(scenarioData({ state_id: 36, state: 6 })));
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.every((p) => p === 'scenarioData.state' || p === 'scenarioData.state_id')).toBe(true);
  });

  it.each([
    [1, 'Alabama'],
    [11, 'District of Columbia'],
    [56, 'Wyoming'],
  ])('accepts state_id %s (%s)', async (state_id, name) => {
    const scenario = await accepted(key, scenarioData({ state_id }));
    expect(scenario.state).toEqual({ id: state_id, name });
    expect(scenario.scenario_data.state).toBe(state_id);
  });
});

describe('programs', () => {
  it.each(SPEC_PROGRAMS)('accepts program %s', async (program) => {
    expect((await accepted(key, scenarioData({ programs: [program] }))).scenario_data.programs).toEqual([program]);
  });

  it('accepts all 19 programs at once', async () => {
    expect((await accepted(key, scenarioData({ programs: [...SPEC_PROGRAMS] }))).scenario_data.programs).toEqual([...SPEC_PROGRAMS]);
  });

  it('refuses an empty programs list', async () => {
    expect(await refusedCreate(key, create(scenarioData({ programs: [] })))).toEqual(['scenarioData.programs']);
  });

  it('refuses a program listed twice', async () => {
    expect(await refusedCreate(key, create(scenarioData({ programs: ['snap', 'eitc', 'snap'] })))).toEqual(['scenarioData.programs[2]']);
  });

  it.each(['food_stamps', 'SNAP', 'medicaid', '', 7])('refuses unknown program %j', async (program) => {
    expect(await refusedCreate(key, create(scenarioData({ programs: ['snap', program] })))).toEqual(['scenarioData.programs[1]']);
  });

  it('refuses programs given as a string', async () => {
    expect(await refusedCreate(key, create(scenarioData({ programs: 'snap' })))).toEqual(['scenarioData.programs']);
  });
});

describe('adult and child counts', () => {
  it('refuses 0 adults', async () => {
    expect(await refusedCreate(key, create(scenarioData({ adult: [] })))).toEqual(['scenarioData.adult']);
  });

  it('accepts 20 adults', async () => {
    const scenario = await accepted(key, scenarioData({ adult: Array.from({ length: 20 }, () => adult()) }));
    expect(scenario.scenario_data.adult).toHaveLength(20);
  });

  it('refuses 21 adults', async () => {
    expect(await refusedCreate(key, create(scenarioData({ adult: Array.from({ length: 21 }, () => adult()) })))).toEqual(['scenarioData.adult']);
  });

  it('accepts 0 and 20 children', async () => {
    expect((await accepted(key, scenarioData({ child: [] }))).scenario_data.child).toEqual([]);
    expect((await accepted(key, scenarioData({ child: Array.from({ length: 20 }, () => child()) }))).scenario_data.child).toHaveLength(20);
  });

  it('refuses 21 children', async () => {
    expect(await refusedCreate(key, create(scenarioData({ child: Array.from({ length: 21 }, () => child()) })))).toEqual(['scenarioData.child']);
  });

  it('refuses an adult that is not an object', async () => {
    expect(await refusedCreate(key, create(scenarioData({ adult: [adult(), 'Parent B'] })))).toEqual(['scenarioData.adult[1]']);
  });
});

describe('sub_division', () => {
  it('accepts a positive integer', async () => {
    expect((await accepted(key, scenarioData({ sub_division: 1 }))).scenario_data.sub_division).toBe(1);
  });

  it.each([0, -3, 2.5, '5', null])('refuses sub_division %j', async (sub_division) => {
    expect(await refusedCreate(key, create(scenarioData({ sub_division })))).toEqual(['scenarioData.sub_division']);
  });
});

describe('adult and child ids', () => {
  it('fills in missing ids with the 1-based positions', async () => {
    const data = scenarioData({ adult: [adult(), adult(), adult()], child: [child(), child()] });
    const scenario = await accepted(key, data);
    expect(scenario.scenario_data.adult.map((a: any) => a.id)).toEqual([1, 2, 3]);
    expect(scenario.scenario_data.child.map((c: any) => c.id)).toEqual([1, 2]);
  });

  it('accepts ids equal to the positions, and a mix of given and missing ids', async () => {
    const scenario = await accepted(key, scenarioData({ adult: [adult({ id: 1 }), adult()], child: [child(), child({ id: 2 })] }));
    expect(scenario.scenario_data.adult.map((a: any) => a.id)).toEqual([1, 2]);
    expect(scenario.scenario_data.child.map((c: any) => c.id)).toEqual([1, 2]);
  });

  it('refuses an adult id that is not its position', async () => {
    expect(await refusedCreate(key, create(scenarioData({ adult: [adult({ id: 1 }), adult({ id: 3 })] })))).toEqual(['scenarioData.adult[1].id']);
  });

  it('refuses a child id that is not its position', async () => {
    expect(await refusedCreate(key, create(scenarioData({ child: [child({ id: 2 }), child({ id: 1 })] })))).toEqual([
      'scenarioData.child[0].id',
      'scenarioData.child[1].id',
    ]);
  });

  it.each([0, -1, '1', 1.5])('refuses adult id %j', async (id) => {
    expect(await refusedCreate(key, create(withAdult({ id })))).toEqual(['scenarioData.adult[0].id']);
  });
});

describe('money and hour amounts', () => {
  it('stores every adult amount given as a JSON number as its string', async () => {
    const numbers = { ...fill(ADULT_MONEY, 1250.5), work_hours_per_week: 40, training_hours_per_week: 7.25 };
    const stored = (await accepted(key, withAdult(numbers))).scenario_data.adult[0];
    for (const field of ADULT_MONEY) expect(stored[field], field).toBe('1250.5');
    expect(stored.work_hours_per_week).toBe('40');
    expect(stored.training_hours_per_week).toBe('7.25');
  });

  it('stores a child ssi_income_amount given as a JSON number as its string', async () => {
    expect((await accepted(key, withChild({ ssi_income_amount: 0 }))).scenario_data.child[0].ssi_income_amount).toBe('0');
  });

  it('keeps amounts given as strings exactly as given', async () => {
    const stored = (await accepted(key, withAdult({ wage_rate: '18.50', monthly_ssi: '943.000', work_hours_per_week: '037.5' }))).scenario_data.adult[0];
    expect([stored.wage_rate, stored.monthly_ssi, stored.work_hours_per_week]).toEqual(['18.50', '943.000', '037.5']);
  });

  it('stores amounts as strings in the list form too', async () => {
    const { token } = await accepted(key, withAdult({ wage_rate: 21 }));
    const item = (await api(key).get('/scenarios')).body.data.find((s: any) => s.token === token);
    expect(item.scenario_data.adult[0].wage_rate).toBe('21');
  });

  it('refuses a negative amount in every adult amount field, naming each', async () => {
    expect(await refusedCreate(key, create(withAdult(fill(ADULT_AMOUNTS, '-1'))))).toEqual(adultPaths(ADULT_AMOUNTS).sort());
  });

  it('refuses a negative JSON number in every adult amount field', async () => {
    expect(await refusedCreate(key, create(withAdult(fill(ADULT_AMOUNTS, -0.01))))).toEqual(adultPaths(ADULT_AMOUNTS).sort());
  });

  it('refuses "1e3" in every amount field, naming each', async () => {
    const data = withAdult(fill(ADULT_AMOUNTS, '1e3'));
    (data.child as any[])[0].ssi_income_amount = '1e3';
    expect(await refusedCreate(key, create(data))).toEqual([...adultPaths(ADULT_AMOUNTS), 'scenarioData.child[0].ssi_income_amount'].sort());
  });

  it.for(['abc', '', ' 12', '12 ', '12,50', '0x10', 'Infinity', 'NaN', '1 000', '$12', null, true, [], {}])(
    'refuses the amount %j',
    async (value) => {
      expect(await refusedCreate(key, create(withAdult({ wage_rate: value })))).toEqual(['scenarioData.adult[0].wage_rate']);
    },
  );

  it('refuses amounts beyond 12 digits before the point or 6 after (the limit the README gives)', async () => {
    expect(await accepted(key, withAdult({ wage_rate: '123456789012.123456' }))).toBeTruthy();
    expect(await refusedCreate(key, create(withAdult({ wage_rate: '1234567890123', unemp_comp: '1.1234567' })))).toEqual([
      'scenarioData.adult[0].unemp_comp',
      'scenarioData.adult[0].wage_rate',
    ]);
  });

  it('refuses a JSON number that does not print as a plain decimal (1e21, 1e-7)', async () => {
    expect(await refusedCreate(key, create(withAdult({ other_unearned: 1e21, child_support: 1e-7 })))).toEqual([
      'scenarioData.adult[0].child_support',
      'scenarioData.adult[0].other_unearned',
    ]);
  });

  it('explains a bad amount once, in words', async () => {
    const errors = expectValidationFailed(await api(key).post('/scenarios', create(withAdult({ wage_rate: '12,50' }))));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/non-negative decimal/);
    expect(errors[0]!.message).not.toMatch(/\^\[/);
  });

  it('refuses a negative or non-numeric child ssi_income_amount', async () => {
    expect(await refusedCreate(key, create(withChild({ ssi_income_amount: '-5' })))).toEqual(['scenarioData.child[0].ssi_income_amount']);
    expect(await refusedCreate(key, create(withChild({ ssi_income_amount: 'none' })))).toEqual(['scenarioData.child[0].ssi_income_amount']);
  });

  it('accepts 168 hours a week in both hour fields', async () => {
    const stored = (await accepted(key, withAdult({ work_hours_per_week: '168', training_hours_per_week: 168 }))).scenario_data.adult[0];
    expect([stored.work_hours_per_week, stored.training_hours_per_week]).toEqual(['168', '168']);
  });

  it.each(['168.5', '169', 169, '1000'])('refuses %j hours a week', async (hours) => {
    expect(await refusedCreate(key, create(withAdult({ work_hours_per_week: hours, training_hours_per_week: hours })))).toEqual(
      adultPaths(ADULT_HOURS).sort(),
    );
  });

  it.each([1e21, 1e-7, -3, 'abc', '169', 169])('gives the hour value %j one problem, not one per rule', async (hours) => {
    const errors = expectValidationFailed(await api(key).post('/scenarios', create(withAdult({ work_hours_per_week: hours }))));
    expect(errors.map((error) => error.path)).toEqual(['scenarioData.adult[0].work_hours_per_week']);
  });

  it('does not cap money amounts at 168', async () => {
    const stored = (await accepted(key, withAdult(fill(ADULT_MONEY, '250000.75')))).scenario_data.adult[0];
    for (const field of ADULT_MONEY) expect(stored[field], field).toBe('250000.75');
  });

  it.each(ADULT_MONEY.concat(ADULT_HOURS))('requires the adult amount %s', async (field) => {
    expect(await refusedCreate(key, create(withAdult({}, [field])))).toEqual([`scenarioData.adult[0].${field}`]);
  });

  it('accepts a child without ssi_income_amount', async () => {
    const stored = (await accepted(key, withChild({}, ['ssi_income_amount']))).scenario_data.child[0];
    expect(stored.ssi_income_amount).toBeUndefined();
  });
});

describe('flags', () => {
  it.each([0, 1])('accepts %s in every adult and child flag', async (value) => {
    const data = withAdult(fill(ADULT_FLAGS, value));
    Object.assign((data.child as any[])[0], fill(CHILD_FLAGS, value));
    const stored = (await accepted(key, data)).scenario_data;
    for (const field of ADULT_FLAGS) expect(stored.adult[0][field], field).toBe(value);
    for (const field of CHILD_FLAGS) expect(stored.child[0][field], field).toBe(value);
  });

  it.for([2, -1, true, false, '1', '0', 0.5, null, []])('refuses the flag value %j in every flag, naming each', async (value) => {
    const data = withAdult(fill(ADULT_FLAGS, value));
    Object.assign((data.child as any[])[0], fill(CHILD_FLAGS, value));
    expect(await refusedCreate(key, create(data))).toEqual([...adultPaths(ADULT_FLAGS), ...childPaths(CHILD_FLAGS)].sort());
  });

  it('accepts an adult without is_pregnant (optional)', async () => {
    expect((await accepted(key, withAdult({}, ['is_pregnant']))).scenario_data.adult[0]).not.toHaveProperty('is_pregnant');
  });

  it.each(ADULT_FLAGS.filter((f) => f !== 'is_pregnant'))('requires the adult flag %s', async (field) => {
    expect(await refusedCreate(key, create(withAdult({}, [field])))).toEqual([`scenarioData.adult[0].${field}`]);
  });

  it.each(CHILD_FLAGS)('requires the child flag %s', async (field) => {
    expect(await refusedCreate(key, create(withChild({}, [field])))).toEqual([`scenarioData.child[0].${field}`]);
  });
});

describe('codes', () => {
  it('accepts 0 and larger non-negative integers in every code', async () => {
    const data = withAdult({ adult_type: 0, aged_or_disability_income: 12 });
    Object.assign((data.child as any[])[0], fill(CHILD_CODES, 0));
    Object.assign((data.child as any[])[1], fill(CHILD_CODES, 9));
    const stored = (await accepted(key, data)).scenario_data;
    expect([stored.adult[0].adult_type, stored.adult[0].aged_or_disability_income]).toEqual([0, 12]);
    for (const field of CHILD_CODES) expect([stored.child[0][field], stored.child[1][field]], field).toEqual([0, 9]);
  });

  it.each([-1, 1.5, '1', null, true])('refuses the code value %j in every code, naming each', async (value) => {
    const data = withAdult(fill(ADULT_CODES, value));
    Object.assign((data.child as any[])[0], fill(CHILD_CODES, value));
    expect(await refusedCreate(key, create(data))).toEqual([...adultPaths(ADULT_CODES), ...childPaths(CHILD_CODES)].sort());
  });

  it.each(ADULT_CODES)('requires the adult code %s', async (field) => {
    expect(await refusedCreate(key, create(withAdult({}, [field])))).toEqual([`scenarioData.adult[0].${field}`]);
  });

  it.each(CHILD_CODES)('requires the child code %s', async (field) => {
    expect(await refusedCreate(key, create(withChild({}, [field])))).toEqual([`scenarioData.child[0].${field}`]);
  });
});

describe('age', () => {
  it('accepts age 0 for a child and 130 for an adult and a child', async () => {
    const data = withAdult({ age: 130 });
    (data.child as any[])[0].age = 0;
    (data.child as any[])[1].age = 130;
    const stored = (await accepted(key, data)).scenario_data;
    expect([stored.adult[0].age, stored.child[0].age, stored.child[1].age]).toEqual([130, 0, 130]);
  });

  it.each([131, -1, 30.5, '30', null])('refuses age %j for an adult and a child', async (age) => {
    const data = withAdult({ age });
    (data.child as any[])[1].age = age;
    expect(await refusedCreate(key, create(data))).toEqual(['scenarioData.adult[0].age', 'scenarioData.child[1].age']);
  });

  it('requires age in an adult and a child', async () => {
    const data = withAdult({}, ['age']);
    (data.child as any[])[0] = without(child(), ['age']);
    expect(await refusedCreate(key, create(data))).toEqual(['scenarioData.adult[0].age', 'scenarioData.child[0].age']);
  });
});

describe('nickname', () => {
  it('accepts a nickname of 100 characters', async () => {
    const nickname = 'n'.repeat(100);
    expect((await accepted(key, withAdult({ nickname }))).scenario_data.adult[0].nickname).toBe(nickname);
  });

  it('refuses a nickname of 101 characters', async () => {
    expect(await refusedCreate(key, create(withAdult({ nickname: 'n'.repeat(101) })))).toEqual(['scenarioData.adult[0].nickname']);
  });

  it('refuses a nickname that is not a string', async () => {
    expect(await refusedCreate(key, create(withAdult({ nickname: 5 })))).toEqual(['scenarioData.adult[0].nickname']);
  });

  it('accepts an adult without a nickname', async () => {
    expect((await accepted(key, withAdult({}, ['nickname']))).scenario_data.adult[0]).not.toHaveProperty('nickname');
  });
});

describe('unknown fields', () => {
  it('refuses an unknown top-level field and names it', async () => {
    expect(await refusedCreate(key, { scenarioData: scenarioData(), household: 'x' })).toEqual(['household']);
  });

  it('refuses an unknown field in scenarioData and names it', async () => {
    expect(await refusedCreate(key, create(scenarioData({ household_size: 4 })))).toEqual(['scenarioData.household_size']);
  });

  it('refuses an unknown field in an adult and names it', async () => {
    const data = scenarioData();
    data.adult[1] = { ...data.adult[1]!, favourite_colour: 'blue' } as (typeof data.adult)[number];
    expect(await refusedCreate(key, create(data))).toEqual(['scenarioData.adult[1].favourite_colour']);
  });

  it('refuses an unknown field in a child and names it', async () => {
    expect(await refusedCreate(key, create(withChild({ school_name: 'PS 1' })))).toEqual(['scenarioData.child[0].school_name']);
  });

  it('catches the typo wage_rte (and the wage_rate it leaves missing)', async () => {
    const paths = await refusedCreate(key, create(withAdult({ wage_rte: '18.50' }, ['wage_rate'])));
    expect(paths).toEqual(['scenarioData.adult[0].wage_rate', 'scenarioData.adult[0].wage_rte']);
  });

  it('catches the typo programes in scenarioData', async () => {
    const data = { ...without(scenarioData(), ['programs']), programes: ['snap'] };
    expect(await refusedCreate(key, create(data))).toEqual(['scenarioData.programes', 'scenarioData.programs']);
  });

  it('names every unknown field when there are several', async () => {
    const data = scenarioData({ extra_one: 1, extra_two: 2 });
    expect(await refusedCreate(key, { scenarioData: data, also: true })).toEqual(['also', 'scenarioData.extra_one', 'scenarioData.extra_two']);
  });

  it('refuses a __proto__ key in scenarioData', async () => {
    const json = JSON.stringify(create(scenarioData())).replace('"year":', '"__proto__":{"polluted":true},"year":');
    expect(await refusedCreateRaw(key, json)).toEqual(['scenarioData.__proto__']);
  });

  it('refuses a __proto__ key in an adult and at the top level', async () => {
    const json = JSON.stringify(create(scenarioData()))
      .replace('"age":34', '"__proto__":{"age":1},"age":34')
      .replace(/^\{/, '{"__proto__":{"x":1},');
    const paths = await refusedCreateRaw(key, json);
    expect(paths).toEqual(['__proto__', 'scenarioData.adult[0].__proto__']);
  });

  it('refuses a constructor key in scenarioData and in a child', async () => {
    const data = scenarioData({ constructor: { name: 'x' } });
    (data.child as any[])[1].constructor = 1;
    expect(await refusedCreate(key, create(data))).toEqual(['scenarioData.child[1].constructor', 'scenarioData.constructor']);
  });

  it('does not pollute Object.prototype', async () => {
    const json = JSON.stringify(create(scenarioData())).replace('"year":', '"__proto__":{"polluted":true},"year":');
    await api(key).send('POST', '/scenarios', { raw: json, headers: { 'Content-Type': 'application/json' } });
    expect(({} as any).polluted).toBeUndefined();
  });
});

describe('reporting', () => {
  it('reports several problems at once, each with its path', async () => {
    const data = scenarioData({ year: 1800, programs: ['snap', 'bogus'] });
    data.adult[0] = adult({ age: 200 });
    data.child[1] = child({ sex: -1 });
    expect(await refusedCreate(key, create(data))).toEqual([
      'scenarioData.adult[0].age',
      'scenarioData.child[1].sex',
      'scenarioData.programs[1]',
      'scenarioData.year',
    ]);
  });

  it('gives a message for each problem', async () => {
    const res = await api(key).post('/scenarios', create(scenarioData({ year: 1800, sub_division: 0 })));
    const errors = expectValidationFailed(res);
    expect(errors).toHaveLength(2);
    expect(errors.every((e) => e.message.length > 0 && !e.message.includes('Error'))).toBe(true);
  });
});

describe('scenario_data synonym', () => {
  it('accepts scenario_data as a synonym of scenarioData', async () => {
    const res = await api(key).post('/scenarios', { scenario_data: scenarioData({ year: 2024 }) });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.scenario.scenario_data.year).toBe(2024);
  });

  it('reports paths that start with scenario_data', async () => {
    const data = scenarioData({ year: 1800 });
    data.adult[1] = adult({ wage_rte: '1' });
    expect(await refusedCreate(key, { scenario_data: data })).toEqual(['scenario_data.adult[1].wage_rte', 'scenario_data.year']);
  });

  it('refuses scenarioData and scenario_data given together', async () => {
    const paths = await refusedCreate(key, { scenarioData: scenarioData(), scenario_data: scenarioData() });
    expect(paths.every((p) => p === 'scenarioData' || p === 'scenario_data')).toBe(true);
  });
});

describe('token inside the data', () => {
  it.each(['123456789012345', 123456789012345, 'mine'])('overwrites a token %j sent inside the data with the real token', async (token) => {
    const scenario = await accepted(key, scenarioData({ token }));
    expect(scenario.scenario_data.token).toBe(Number(scenario.token));
    const item = (await api(key).get('/scenarios')).body.data.find((s: any) => s.token === scenario.token);
    expect(item.scenario_data.token).toBe(scenario.token);
  });

  it('overwrites a token sent inside the data on save', async () => {
    const { token } = await createScenario(key);
    const res = await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ token: '999999999999999' }) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.scenario.scenario_data.token).toBe(Number(token));
    expect((await api(key).get(`/scenarios/${token}`)).body.data.scenario.scenario_data.token).toBe(Number(token));
  });
});

describe('POST /scenarios/save validation', () => {
  let token: string;
  beforeEach(async () => {
    ({ token } = await createScenario(key));
  });

  it('refuses invalid data and leaves the scenario unchanged', async () => {
    expect(await refusedSave(key, token, { token, scenarioData: scenarioData({ year: 1800 }) })).toEqual(['scenarioData.year']);
  });

  it('refuses invalid data through PUT too', async () => {
    expect(await refusedSave(key, token, { token, scenarioData: withAdult({ work_hours_per_week: '200' }) }, 'PUT')).toEqual([
      'scenarioData.adult[0].work_hours_per_week',
    ]);
  });

  it('names unknown fields at every level', async () => {
    const data = withChild({ colour: 'red' });
    (data as any).extra = 1;
    expect(await refusedSave(key, token, { token, scenarioData: data, note: 'x' })).toEqual([
      'note',
      'scenarioData.child[0].colour',
      'scenarioData.extra',
    ]);
  });

  it('refuses a save without token', async () => {
    expect(await refusedSave(key, token, { scenarioData: scenarioData() })).toEqual(['token']);
  });

  it.each(['abc', '12345', '012345678901234', 12.5, null])('refuses the malformed token %j', async (bad) => {
    expect(await refusedSave(key, token, { token: bad, scenarioData: scenarioData() })).toEqual(['token']);
  });

  it('refuses a save without scenarioData', async () => {
    expect(await refusedSave(key, token, { token })).toEqual(['scenarioData']);
  });

  it('reports scenario_data paths when the save uses scenario_data', async () => {
    expect(await refusedSave(key, token, { token, scenario_data: scenarioData({ programs: [] }) })).toEqual(['scenario_data.programs']);
  });

  it('accepts scenario_data on save', async () => {
    const res = await api(key).put('/scenarios/save', { token, scenario_data: scenarioData({ year: 2001 }) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.scenario.scenario_data.year).toBe(2001);
  });

  it('accepts the token as a JSON number', async () => {
    const res = await api(key).post('/scenarios/save', { token: Number(token), scenarioData: scenarioData({ year: 2002 }) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.scenario.token).toBe(token);
  });

  it('refuses state_id and state that disagree on save', async () => {
    const paths = await refusedSave(key, token, { token, scenarioData: scenarioData({ state_id: 1, state: 2 }) });
    expect(paths.length).toBeGreaterThan(0);
  });

  it('refuses 21 adults and an unknown program on save, both at once', async () => {
    const data = scenarioData({ adult: Array.from({ length: 21 }, () => adult()), programs: ['snap', 'welfare'] });
    expect(await refusedSave(key, token, { token, scenarioData: data })).toEqual(['scenarioData.adult', 'scenarioData.programs[1]']);
  });
});

describe('refusals leave nothing behind', () => {
  it('a refused create with a valid-looking body leaves the list empty', async () => {
    const res = await api(key).post('/scenarios', create(scenarioData({ state_id: 99 })));
    expect(pathsOf(expectValidationFailed(res))).toEqual(['scenarioData.state_id']);
    expect((await api(key).get('/scenarios')).body).toEqual({ data: [], has_more: false });
  });
});
