// Varied households for the storage figures of bench:capacity, and the edits a person makes to
// one between saves. Seeded, so every run stores the same bytes. A household has 1–4 adults and
// 0–5 children with their own values; an edit changes what people change between two
// calculations: an amount or the hours of one adult (most often), the year, a program, a child's
// details, a child added or removed, everyone a year older. `rewrite` is the other extreme: every
// save a different household.

const PROGRAMS = ['actc', 'ctc', 'eitc', 'state_tax', 'state_eitc', 'child_care', 'tanf', 'ssi', 'liheap', 'fica', 'snap', 'medic_aid', 'hix_ptc', 'chip', 'housing', 'wic', 'nslp'];
const STATES = [1, 6, 12, 13, 17, 26, 36, 37, 39, 42, 48, 51, 53];
const ADULT_MONEY = ['wage_rate', 'unemp_comp', 'monthly_ssi', 'child_support', 'other_unearned', 'monthly_disability', 'soc_sec_retirement'];

export type Household = Record<string, any>;

const int = (rng: () => number, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));
const pick = <T>(rng: () => number, items: readonly T[]) => items[Math.floor(rng() * items.length)]!;
const money = (rng: () => number, max: number) => (rng() < 0.6 ? '0' : (rng() * max).toFixed(2));

function adult(rng: () => number, i: number) {
  const working = rng() < 0.7;
  return {
    age: int(rng, 18, 80), nickname: `Adult ${i + 1}`, wage_rate: working ? (12 + rng() * 40).toFixed(2) : '0', yes_or_no: 1, adult_type: int(rng, 1, 3),
    is_married: rng() < 0.5 ? 1 : 0, is_veteran: rng() < 0.1 ? 1 : 0, unemp_comp: money(rng, 600), is_pregnant: rng() < 0.05 ? 1 : 0, monthly_ssi: money(rng, 950),
    child_support: money(rng, 500), other_unearned: money(rng, 300), monthly_disability: money(rng, 1200), soc_sec_retirement: money(rng, 1800), same_snap_household: 1,
    work_hours_per_week: working ? String(int(rng, 10, 50)) : '0', is_spouse_in_household: rng() < 0.5 ? 1 : 0, same_legal_hh_fed_state: 1,
    training_hours_per_week: String(rng() < 0.8 ? 0 : int(rng, 1, 20)), aged_or_disability_income: rng() < 0.1 ? 1 : 0,
  };
}

function child(rng: () => number) {
  return {
    age: int(rng, 0, 17), sex: int(rng, 1, 2), caretaker: 1, in_school: rng() < 0.7 ? 1 : 0, yes_or_no: 1, is_disabled: rng() < 0.05 ? 1 : 0,
    cc_rate_category: int(rng, 1, 3), ssi_income_amount: rng() < 0.9 ? '0' : (rng() * 900).toFixed(2), child_care_setting: int(rng, 1, 4),
    relation_to_caretaker: int(rng, 1, 3), same_legal_hh_fed_state: 1, purchase_and_prepare_meals_together: 1,
  };
}

export function household(rng: () => number): Household {
  const programs = PROGRAMS.filter(() => rng() < 0.35);
  return {
    year: int(rng, 2022, 2027),
    state_id: pick(rng, STATES),
    programs: programs.length > 0 ? programs : ['snap'],
    adult: Array.from({ length: int(rng, 1, 4) }, (_, i) => adult(rng, i)),
    child: Array.from({ length: int(rng, 0, 5) }, () => child(rng)),
  };
}

/** The household after one edit (a new object; the one given is left as it was). */
export function edit(data: Household, rng: () => number): Household {
  const next = structuredClone(data);
  const roll = rng();
  const someAdult = next.adult[int(rng, 0, next.adult.length - 1)];
  if (roll < 0.4) someAdult[pick(rng, ADULT_MONEY)] = (rng() * 2000).toFixed(2);
  else if (roll < 0.55) someAdult.work_hours_per_week = String(int(rng, 0, 60));
  else if (roll < 0.65) next.year = int(rng, 2022, 2027);
  else if (roll < 0.75) {
    const program = pick(rng, PROGRAMS);
    next.programs = next.programs.includes(program) && next.programs.length > 1 ? next.programs.filter((p: string) => p !== program) : [...new Set([...next.programs, program])];
  } else if (roll < 0.85 && next.child.length > 0) next.child[int(rng, 0, next.child.length - 1)].child_care_setting = int(rng, 1, 4);
  else if (roll < 0.9 && next.child.length < 8) next.child.push(child(rng));
  else if (roll < 0.95 && next.child.length > 0) next.child.pop();
  else for (const member of [...next.adult, ...next.child]) member.age = Math.min(member.age + 1, 17 + (member.wage_rate === undefined ? 0 : 100));
  return next;
}
