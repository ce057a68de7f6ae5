// From validated input to the stored scenario_data: ids filled in, amounts as strings, `state`
// from state_id, `token` from the scenario, keys in the spec's order.
import type { AdultInput, ChildInput, ScenarioDataInput } from './schema.ts';

type Amount = string | number;
type Stored<T> = { [K in keyof T]-?: T[K] extends Amount ? string : Exclude<T[K], undefined> };

export type StoredAdult = Omit<Stored<AdultInput>, 'nickname' | 'is_pregnant'> & Pick<AdultInput, 'nickname' | 'is_pregnant'>;
export type StoredChild = Omit<Stored<ChildInput>, 'ssi_income_amount'> & { ssi_income_amount?: string };

export interface StoredScenarioData {
  year: number;
  adult: StoredAdult[];
  child: StoredChild[];
  state: number;
  token: string;
  programs: string[];
  sub_division?: number;
}

/** The state the data names (validation guarantees one of the two is a known state). */
export function stateIdOf(input: ScenarioDataInput): number {
  const id = input.state_id ?? input.state;
  if (id === undefined) throw new Error('validated scenario data without a state');
  return id;
}

const ADULT_AMOUNTS = new Set([
  'wage_rate', 'unemp_comp', 'monthly_ssi', 'child_support', 'other_unearned', 'monthly_disability',
  'soc_sec_retirement', 'work_hours_per_week', 'training_hours_per_week',
]);
const CHILD_AMOUNTS = new Set(['ssi_income_amount']);

/** `id` first and equal to the position, then the given fields in schema order, amounts as strings. */
function normaliseMember(member: object, index: number, amounts: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = { id: index + 1 };
  // for…in, not Object.entries: the same keys in the same order (a validated plain object has no
  // inherited ones), without an array per field on every save and create.
  for (const key in member) {
    const value = (member as Record<string, unknown>)[key];
    if (key === 'id' || value === undefined) continue;
    out[key] = amounts.has(key) && typeof value === 'number' ? String(value) : value;
  }
  return out;
}

export function toStoredData(input: ScenarioDataInput, token: string): StoredScenarioData {
  const data: StoredScenarioData = {
    year: input.year,
    adult: input.adult.map((a, i) => normaliseMember(a, i, ADULT_AMOUNTS) as StoredAdult),
    child: (input.child ?? []).map((c, i) => normaliseMember(c, i, CHILD_AMOUNTS) as StoredChild),
    state: stateIdOf(input),
    token,
    programs: input.programs,
  };
  if (input.sub_division !== undefined) data.sub_division = input.sub_division;
  return data;
}
