// Realistic scenario data for the benchmark: households of two adults and two children, varied
// per row (ages, wages, hours, state, programs), in the request form and in the exact stored
// form (through the service's own toStoredData).
import type { AdultInput, ChildInput, ScenarioDataInput } from '../../src/scenarios/schema.ts';
import { toStoredData } from '../../src/scenarios/data.ts';

export const STATE_IDS = [
  1, 2, 4, 5, 6, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
  31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 44, 45, 46, 47, 48, 49, 50, 51, 53, 54, 55, 56,
];
/**
 * The bench's 1 % filters (bench/filters.ts): one row in a hundred, and no other, is in this state,
 * of this year and has this program (different rows for each; see bench/lib/seed.ts).
 */
export const RARE = { stateId: 56, year: 2023, program: 'ssi' } as const;
const COMMON_STATE_IDS = STATE_IDS.filter((id) => id !== RARE.stateId);
const PROGRAMS = ['snap', 'eitc', 'ctc', 'child_care', 'medic_aid', 'chip', 'wic', 'liheap', 'tanf', 'fed_tax', 'state_tax', 'nslp'];

/** A small deterministic PRNG (mulberry32), so a seed gives the same database every time. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
const between = (rand: () => number, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const money = (rand: () => number, lo: number, hi: number) => (lo + rand() * (hi - lo)).toFixed(2);

function adult(rand: () => number, nickname: string, working: boolean): AdultInput {
  return {
    age: between(rand, 22, 58),
    nickname,
    wage_rate: working ? money(rand, 9, 48) : '0',
    yes_or_no: 1,
    adult_type: 1,
    is_married: 1,
    is_veteran: rand() < 0.08 ? 1 : 0,
    unemp_comp: working ? '0' : money(rand, 200, 900),
    is_pregnant: 0,
    monthly_ssi: '0',
    child_support: rand() < 0.15 ? money(rand, 100, 600) : '0',
    other_unearned: '0',
    monthly_disability: '0',
    soc_sec_retirement: '0',
    same_snap_household: 1,
    work_hours_per_week: working ? String(pick(rand, [20, 25, 30, 35, 40, 40, 40, 45])) : '0',
    is_spouse_in_household: 1,
    same_legal_hh_fed_state: 1,
    training_hours_per_week: rand() < 0.2 ? String(between(rand, 2, 10)) : '0',
    aged_or_disability_income: 0,
  };
}

function child(rand: () => number): ChildInput {
  const age = between(rand, 0, 17);
  return {
    age,
    sex: between(rand, 1, 2),
    caretaker: 1,
    in_school: age >= 5 ? 1 : 0,
    yes_or_no: 1,
    is_disabled: rand() < 0.05 ? 1 : 0,
    cc_rate_category: between(rand, 1, 3),
    ssi_income_amount: '0',
    child_care_setting: between(rand, 1, 3),
    relation_to_caretaker: 1,
    same_legal_hh_fed_state: 1,
    purchase_and_prepare_meals_together: 1,
  };
}

/** A household in the request form (what a client sends as scenarioData). */
export function household(rand: () => number): ScenarioDataInput {
  const programs = PROGRAMS.filter(() => rand() < 0.5);
  if (programs.length === 0) programs.push('snap');
  return {
    year: pick(rand, [2024, 2025, 2026]),
    state_id: pick(rand, COMMON_STATE_IDS),
    programs: programs as ScenarioDataInput['programs'],
    adult: [adult(rand, 'Parent A', true), adult(rand, 'Parent B', rand() < 0.7)],
    child: [child(rand), child(rand)],
  };
}

/** The stored scenario_data text of that household under `token` (list form, token as a string). */
export function storedText(input: ScenarioDataInput, token: string): string {
  return JSON.stringify(toStoredData(input, token));
}

/** Unique 15-digit tokens, no leading zero. */
export function tokenMaker(rand: () => number): () => string {
  const used = new Set<string>();
  return () => {
    for (;;) {
      let token = String(1 + Math.floor(rand() * 9));
      while (token.length < 15) token += String(Math.floor(rand() * 10));
      if (!used.has(token)) {
        used.add(token);
        return token;
      }
    }
  };
}
