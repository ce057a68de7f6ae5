// Shared pieces of the property-based tests (fuzz.*.test.ts, concurrency.test.ts): arbitraries of
// valid scenario data built from the rules of docs/decisions.md with the normalised form the service
// must store, a ring of API keys (the per-key limit is 600 requests a minute), bounded
// concurrency, and the rows of one account straight from D1 (to prove a refusal changed nothing).
import { env } from 'cloudflare:workers';
import { fc } from '@fast-check/vitest';
import { createAccount, createKey, dbOf } from './api.ts';
import { SPEC_PROGRAMS } from './scenarios.ts';

/** FIPS codes of the 50 states and DC. */
export const FIPS = [
  1, 2, 4, 5, 6, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36,
  37, 38, 39, 40, 41, 42, 44, 45, 46, 47, 48, 49, 50, 51, 53, 54, 55, 56,
] as const;
/** Positive integers in FIPS's range (and beyond) that name no state: gaps, territories, junk. */
export const NOT_FIPS = [3, 7, 14, 43, 52, 57, 60, 66, 69, 72, 78, 99, 100, 1000] as const;

export const DECIMAL = /^[0-9]{1,12}(\.[0-9]{1,6})?$/;
export const MAX_INT32 = 2_147_483_647;

export const ADULT_MONEY = ['wage_rate', 'unemp_comp', 'monthly_ssi', 'child_support', 'other_unearned', 'monthly_disability', 'soc_sec_retirement'] as const;
export const ADULT_HOURS = ['work_hours_per_week', 'training_hours_per_week'] as const;
export const ADULT_FLAGS = ['yes_or_no', 'is_married', 'is_veteran', 'same_snap_household', 'is_spouse_in_household', 'same_legal_hh_fed_state'] as const;
export const ADULT_CODES = ['adult_type', 'aged_or_disability_income'] as const;
export const CHILD_FLAGS = ['yes_or_no', 'is_disabled', 'same_legal_hh_fed_state', 'purchase_and_prepare_meals_together'] as const;
export const CHILD_CODES = ['sex', 'caretaker', 'in_school', 'cc_rate_category', 'child_care_setting', 'relation_to_caretaker'] as const;

export const ADULT_REQUIRED = ['age', ...ADULT_MONEY, ...ADULT_HOURS, ...ADULT_FLAGS, ...ADULT_CODES] as string[];
export const ADULT_OPTIONAL = ['id', 'nickname', 'is_pregnant'];
export const CHILD_REQUIRED = ['age', ...CHILD_FLAGS, ...CHILD_CODES] as string[];
export const CHILD_OPTIONAL = ['id', 'ssi_income_amount'];
export const DATA_KEYS = ['year', 'state_id', 'state', 'token', 'programs', 'adult', 'child', 'sub_division'];

export type FieldKind = 'int' | 'flag' | 'code' | 'age' | 'money' | 'hours' | 'nickname' | 'id';

/** What kind of value a member field holds. */
export function memberFieldKind(member: 'adult' | 'child', field: string): FieldKind {
  if (field === 'id') return 'id';
  if (field === 'age') return 'age';
  if (field === 'nickname') return 'nickname';
  if (field === 'is_pregnant') return 'flag';
  if (member === 'adult') {
    if ((ADULT_MONEY as readonly string[]).includes(field)) return 'money';
    if ((ADULT_HOURS as readonly string[]).includes(field)) return 'hours';
    if ((ADULT_FLAGS as readonly string[]).includes(field)) return 'flag';
    return 'code';
  }
  if (field === 'ssi_income_amount') return 'money';
  if ((CHILD_FLAGS as readonly string[]).includes(field)) return 'flag';
  return 'code';
}

// ---------------------------------------------------------------------------------------------
// Valid values

const digits = (minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });

/** A non-negative decimal string: 1–12 digits, optionally a point and 1–6 digits (leading zeros too). */
export const decimalText = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('0', '0.0', '18.50', '943', '1250.5', '999999999999.999999', '000000000000.000001', '0.000001') },
  {
    weight: 4,
    arbitrary: fc.tuple(digits(1, 12), fc.option(digits(1, 6), { nil: undefined })).map(([i, f]) => (f === undefined ? i : `${i}.${f}`)),
  },
);
/** A non-negative JSON number whose String() is a plain decimal (what the service stores). */
export const decimalNumber = fc.oneof(
  fc.integer({ min: 0, max: 100 }),
  fc.integer({ min: 0, max: 999_999_999_999 }),
  decimalText.map(Number).filter((n) => DECIMAL.test(String(n))),
);
const hoursText = fc
  .oneof(
    fc.constantFrom('0', '40', '37.5', '168', '168.0', '168.000000', '0168'),
    fc
      .tuple(fc.integer({ min: 0, max: 167 }), fc.option(digits(1, 6), { nil: undefined }), fc.integer({ min: 0, max: 2 }))
      .map(([i, f, zeros]) => '0'.repeat(zeros) + i + (f === undefined ? '' : `.${f}`)),
  )
  .filter((s) => DECIMAL.test(s) && Number(s) <= 168);
const hoursNumber = hoursText.map(Number).filter((n) => DECIMAL.test(String(n)) && n <= 168);

export const money = fc.oneof({ weight: 3, arbitrary: decimalText }, { weight: 1, arbitrary: decimalNumber });
export const hours = fc.oneof({ weight: 3, arbitrary: hoursText }, { weight: 1, arbitrary: hoursNumber });
export const flag = fc.constantFrom(0, 1);
export const codeValue = fc.oneof(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: MAX_INT32 }));
export const ageValue = fc.integer({ min: 0, max: 130 });
const loneSurrogates = fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), maxLength: 10 });
/** Characters as the contract counts them: Unicode code points (an emoji is one, not two UTF-16 units). */
export const codePoints = (s: string) => Array.from(s).length;
/** Nicknames: ASCII, graphemes, any code point, lone surrogates; at most 100 code points. */
export const nickname = fc
  .oneof(
    fc.string({ maxLength: 100 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 100 }),
    fc.tuple(fc.string({ maxLength: 20 }), loneSurrogates).map(([a, b]) => a + b),
    fc.constantFrom('', 'x'.repeat(100), 'é'.repeat(100), '😀'.repeat(100), 'Ĳ\u0000\u001f"\\/</script>'),
  )
  .filter((s) => codePoints(s) <= 100);

const adultFields = {
  age: ageValue,
  nickname,
  is_pregnant: flag,
  ...Object.fromEntries(ADULT_MONEY.map((f) => [f, money])),
  ...Object.fromEntries(ADULT_HOURS.map((f) => [f, hours])),
  ...Object.fromEntries(ADULT_FLAGS.map((f) => [f, flag])),
  ...Object.fromEntries(ADULT_CODES.map((f) => [f, codeValue])),
} as Record<string, fc.Arbitrary<unknown>>;
const childFields = {
  age: ageValue,
  ssi_income_amount: money,
  ...Object.fromEntries(CHILD_FLAGS.map((f) => [f, flag])),
  ...Object.fromEntries(CHILD_CODES.map((f) => [f, codeValue])),
} as Record<string, fc.Arbitrary<unknown>>;

type Member = Record<string, unknown>;
const member = (fields: Record<string, fc.Arbitrary<unknown>>, required: string[]) =>
  fc.record({ fields: fc.record(fields, { requiredKeys: required as never[] }), withId: fc.boolean() });

/** 1–20 (or 0–20) members: mostly small households, one in five drawn from the whole range. */
const members = <T>(arb: fc.Arbitrary<T>, minLength: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.array(arb, { minLength, maxLength: 20 }) },
    { weight: 1, arbitrary: fc.array(arb, { minLength, maxLength: 20, size: 'max' }) },
  );

export interface ValidScenario {
  /** The scenarioData to send. */
  data: Record<string, unknown>;
  stateId: number;
}

/** Valid scenarioData from the rules: every field within bounds, optional fields sometimes. */
export const validScenarioData: fc.Arbitrary<ValidScenario> = fc
  .record({
    year: fc.integer({ min: 1990, max: 2100 }),
    stateId: fc.constantFrom(...FIPS),
    stateMode: fc.constantFrom('state_id', 'state', 'both'),
    programs: fc.shuffledSubarray([...SPEC_PROGRAMS], { minLength: 1 }),
    adults: members(member(adultFields, ADULT_REQUIRED), 1),
    // child is optional (defaults to []): absent in about a quarter of the bodies.
    children: fc.option(members(member(childFields, CHILD_REQUIRED), 0), { nil: undefined, freq: 4 }),
    subDivision: fc.option(fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: MAX_INT32 })), { nil: undefined }),
    // A token inside the data is overwritten by the scenario's: sent in about a quarter of the bodies.
    dataToken: fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 64 }), fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER })) },
    ),
  })
  .map(({ year, stateId, stateMode, programs, adults, children, subDivision, dataToken }) => {
    const withIds = (members: Array<{ fields: Member; withId: boolean }>) =>
      members.map(({ fields, withId }, i) => (withId ? { id: i + 1, ...fields } : { ...fields }));
    const data: Record<string, unknown> = { year };
    if (stateMode !== 'state') data.state_id = stateId;
    if (stateMode !== 'state_id') data.state = stateId;
    data.programs = programs;
    data.adult = withIds(adults);
    if (children !== undefined) data.child = withIds(children);
    if (subDivision !== undefined) data.sub_division = subDivision;
    if (dataToken !== undefined) data.token = dataToken;
    return { data, stateId };
  });

const ADULT_AMOUNT_SET = new Set<string>([...ADULT_MONEY, ...ADULT_HOURS]);
const normaliseMember = (m: Member, index: number, amounts: Set<string>) => {
  const out: Member = {};
  for (const [k, v] of Object.entries(m)) out[k] = amounts.has(k) && typeof v === 'number' ? String(v) : v;
  out.id = index + 1;
  return out;
};

/**
 * The stored scenario_data the contract promises for these input data: ids 1..n, amounts as
 * strings, `state` from state_id (or state), no state_id, child defaulting to [], and `token` the
 * scenario's token (a string in the list form, a number in the detail form).
 */
export function expectedStored(data: Record<string, unknown>, token: string | number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    year: data.year,
    adult: (data.adult as Member[]).map((m, i) => normaliseMember(m, i, ADULT_AMOUNT_SET)),
    child: ((data.child as Member[] | undefined) ?? []).map((m, i) => normaliseMember(m, i, new Set(['ssi_income_amount']))),
    state: data.state_id ?? data.state,
    token,
    programs: data.programs,
  };
  if (data.sub_division !== undefined) out.sub_division = data.sub_division;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Paths, keys, concurrency, rows

/** A path as the service writes it: `scenarioData.adult[0].age`. */
export function formatPath(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

/** Round-robin over several keys of one account, so no key nears its 600 requests a minute. */
export class KeyRing {
  private i = 0;
  readonly accountId: number;
  readonly keys: string[];
  constructor(accountId: number, keys: string[]) {
    this.accountId = accountId;
    this.keys = keys;
  }
  next(): string {
    const key = this.keys[this.i % this.keys.length];
    this.i += 1;
    if (key === undefined) throw new Error('empty key ring');
    return key;
  }
}

/** A fresh account with `n` read_write keys. */
export async function accountWithKeys(n: number): Promise<KeyRing> {
  const account = await createAccount();
  const keys = await Promise.all(Array.from({ length: n }, () => createKey(account.id).then((k) => k.key)));
  return new KeyRing(account.id, keys);
}

/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight; results in input order. Every
 * call runs to its end even when one fails (no request is left in flight), then the first failure
 * is thrown.
 */
export async function inPool<T, R>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  const failures: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  if (failures.length > 0) throw failures[0];
  return results;
}

/** Every stored row of one account (scenarios and idempotency records), straight from D1. */
export async function accountRows(accountId: number): Promise<{ scenarios: unknown[]; idempotency: unknown[] }> {
  const db = dbOf(accountId);
  const [scenarios, idempotency] = await db.batch([
    db.prepare('SELECT * FROM scenarios WHERE account_id = ? ORDER BY id').bind(accountId),
    db.prepare('SELECT * FROM idempotency_records WHERE account_id = ? ORDER BY key').bind(accountId),
  ]);
  return { scenarios: scenarios?.results ?? [], idempotency: idempotency?.results ?? [] };
}

/** Counts statuses; `fiveXX` lists the requests that got one. */
export class StatusTally {
  readonly counts = new Map<number, number>();
  readonly fiveXX: string[] = [];
  add(status: number, what: string): void {
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
    if (status >= 500) this.fiveXX.push(`${status} ${what}`);
  }
  get total(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }
  toString(): string {
    return [...this.counts.entries()]
      .sort(([a], [b]) => a - b)
      .map(([s, c]) => `${s}×${c}`)
      .join(' ');
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text with lone surrogates written as \uXXXX escapes. */
export function wellFormedText(text: string): string {
  return text.replace(LONE_SURROGATE, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/**
 * Wraps a property so that its failure can be reported. The generated data hold lone surrogates
 * (nicknames), and an assertion message quoting them is not valid UTF-8: the channel from workerd
 * to vitest refuses it and the run dies with "Invalid WebSocket frame" instead of the failure.
 */
export function reportable<A extends unknown[]>(property: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await property(...args);
    } catch (error) {
      const e = error as { message?: unknown; stack?: unknown; expected?: unknown; actual?: unknown };
      const show = (value: unknown) => wellFormedText(typeof value === 'string' ? value : JSON.stringify(value) ?? String(value)).slice(0, 4000);
      let message = show(e.message ?? error);
      if (e.expected !== undefined || e.actual !== undefined) message += `\n  expected: ${show(e.expected)}\n  actual:   ${show(e.actual)}`;
      const safe = new Error(message);
      safe.stack = `${safe.name}: ${message}\n${wellFormedText(String(e.stack ?? '')).split('\n').slice(1).join('\n')}`;
      throw safe;
    }
  };
}
