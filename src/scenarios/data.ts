// From validated input to the stored scenario_data: ids filled in, amounts as strings, `state`
// from state_id, `token` from the scenario, keys in the spec's order.
import type { AdultInput, ChildInput, ScenarioDataInput } from './schema.ts';

type Amount = string | number;
/** An amount field (a string or a number on input) is stored as a string; every other field as given. */
type StoredValue<V> = Amount extends Exclude<V, undefined> ? string : Exclude<V, undefined>;
type Stored<T> = { [K in keyof T]-?: StoredValue<T[K]> };

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

/** An amount as stored: the decimal string a client sent, or the string of the JSON number it sent. */
const amountText = (value: Amount): string => (typeof value === 'number' ? String(value) : value);

// One object literal per kind of member, in the schema's field order, `id` first and equal to the
// position. The compiler checks them against the schema's types: a field added there fails to
// compile here until it is stored. (A loop over each member's keys cost a save 0.8 % of its
// instructions, counted with `npm run bench:instructions`: every key a lookup by name, every
// field an object growing by one property.) An optional field the client left out is undefined
// here, and JSON leaves it out.

function storedAdult(adult: AdultInput, index: number): StoredAdult {
  return {
    id: index + 1,
    age: adult.age,
    nickname: adult.nickname,
    wage_rate: amountText(adult.wage_rate),
    yes_or_no: adult.yes_or_no,
    adult_type: adult.adult_type,
    is_married: adult.is_married,
    is_veteran: adult.is_veteran,
    unemp_comp: amountText(adult.unemp_comp),
    is_pregnant: adult.is_pregnant,
    monthly_ssi: amountText(adult.monthly_ssi),
    child_support: amountText(adult.child_support),
    other_unearned: amountText(adult.other_unearned),
    monthly_disability: amountText(adult.monthly_disability),
    soc_sec_retirement: amountText(adult.soc_sec_retirement),
    same_snap_household: adult.same_snap_household,
    work_hours_per_week: amountText(adult.work_hours_per_week),
    is_spouse_in_household: adult.is_spouse_in_household,
    same_legal_hh_fed_state: adult.same_legal_hh_fed_state,
    training_hours_per_week: amountText(adult.training_hours_per_week),
    aged_or_disability_income: adult.aged_or_disability_income,
  };
}

function storedChild(child: ChildInput, index: number): StoredChild {
  return {
    id: index + 1,
    age: child.age,
    sex: child.sex,
    caretaker: child.caretaker,
    in_school: child.in_school,
    yes_or_no: child.yes_or_no,
    is_disabled: child.is_disabled,
    cc_rate_category: child.cc_rate_category,
    ssi_income_amount: child.ssi_income_amount === undefined ? undefined : amountText(child.ssi_income_amount),
    child_care_setting: child.child_care_setting,
    relation_to_caretaker: child.relation_to_caretaker,
    same_legal_hh_fed_state: child.same_legal_hh_fed_state,
    purchase_and_prepare_meals_together: child.purchase_and_prepare_meals_together,
  };
}

export function toStoredData(input: ScenarioDataInput, token: string): StoredScenarioData {
  const data: StoredScenarioData = {
    year: input.year,
    adult: input.adult.map(storedAdult),
    child: (input.child ?? []).map(storedChild),
    state: stateIdOf(input),
    token,
    programs: input.programs,
  };
  if (input.sub_division !== undefined) data.sub_division = input.sub_division;
  return data;
}
