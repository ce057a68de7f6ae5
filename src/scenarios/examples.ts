// Examples for the OpenAPI document: one household of two adults and two children in New York.
// The data goes through the request schema and the response examples are built by the functions
// that build real responses, so the examples cannot drift from what the service accepts and sends.
// They are functions, handed to jsonContent as they are: built when the document is generated
// (`npm run openapi`, the tests), never at isolate start.
import type { Scenario } from '../db/schema.ts';
import { toStoredData } from './data.ts';
import { CSV_HEADER, csvRow, ndjsonLine } from './export.ts';
import { toListItem, toScenarioForm } from './forms.ts';
import { ScenarioDataInputSchema, type ScenarioDataInput } from './schema.ts';

const TOKEN = '482913075561204';
const CREATED_AT = Date.UTC(2026, 10, 21, 8, 14, 3, 512);
const CHART_IMG = `https://scenario-service.example.workers.dev/scenarios/${TOKEN}/chart.svg?exp=1795252443&sig=7.Yk3p0qF8m2c9RZJdV1wQe4sTtA6hLbN0uXyG5oKjP_s`;

/** A working parent; the fields in the spec's order. */
function adult(age: number, nickname: string, wageRate: string, hoursPerWeek: string, trainingHours = '0') {
  return {
    age,
    nickname,
    wage_rate: wageRate,
    yes_or_no: 1,
    adult_type: 1,
    is_married: 1,
    is_veteran: 0,
    unemp_comp: '0',
    is_pregnant: 0,
    monthly_ssi: '0',
    child_support: '0',
    other_unearned: '0',
    monthly_disability: '0',
    soc_sec_retirement: '0',
    same_snap_household: 1,
    work_hours_per_week: hoursPerWeek,
    is_spouse_in_household: 1,
    same_legal_hh_fed_state: 1,
    training_hours_per_week: trainingHours,
    aged_or_disability_income: 0,
  };
}

function child(age: number, sex: number, inSchool: number, ccRateCategory: number, childCareSetting: number) {
  return {
    age,
    sex,
    caretaker: 1,
    in_school: inSchool,
    yes_or_no: 1,
    is_disabled: 0,
    cc_rate_category: ccRateCategory,
    ssi_income_amount: '0',
    child_care_setting: childCareSetting,
    relation_to_caretaker: 1,
    same_legal_hh_fed_state: 1,
    purchase_and_prepare_meals_together: 1,
  };
}

const household = (year: number) => ({
  year,
  state_id: 36,
  programs: ['snap', 'eitc', 'ctc', 'child_care', 'medic_aid'],
  adult: [adult(36, 'Parent A', '22.50', '40'), adult(34, 'Parent B', '16.00', '20', '6')],
  child: [child(7, 1, 1, 2, 1), child(3, 2, 0, 1, 2)],
  sub_division: 5,
});

/** Parsed, so an example the schema would refuse fails when the document is generated rather than in the docs. */
const parsed = (data: object): ScenarioDataInput => ScenarioDataInputSchema.parse(data);

export const exampleCreateBody = () => ({ scenarioData: household(2026) });
export const exampleSaveBody = () => ({ token: TOKEN, scenarioData: household(2027) });

const row = (): Scenario => ({
  id: 1042,
  token: TOKEN,
  accountId: 7,
  stateId: 36,
  scenarioData: exampleStored().created,
  version: 1,
  changeId: null,
  createdAt: CREATED_AT,
  updatedAt: CREATED_AT,
  year: 2026,
});

/** The example's token, and its stored data as created (version 1) and as saved (version 2). */
export const EXAMPLE_TOKEN = TOKEN;
export const exampleStored = () => ({
  created: JSON.stringify(toStoredData(parsed(exampleCreateBody().scenarioData), TOKEN)),
  saved: JSON.stringify(toStoredData(parsed(exampleSaveBody().scenarioData), TOKEN)),
});
export const EXAMPLE_CREATED_AT = CREATED_AT;

/** A reply carrying the example scenario (view, create, save, restore), with `changes` to its row. */
export function exampleScenario(changes: Partial<Scenario> = {}) {
  return { data: toScenarioForm({ ...row(), ...changes }, null, CHART_IMG) };
}

/** The example scenario saved for the next year (version 2, an hour later). */
export const exampleSaved = () => exampleScenario({ scenarioData: exampleStored().saved, version: 2, updatedAt: CREATED_AT + 3_600_000, year: 2027 });

export const exampleDeletion = () => ({ data: { token: TOKEN, deleted: true } });

export const exampleList = () => ({ data: [toListItem(row(), null)], has_more: false });

/** An export of the example scenario, in each format. */
export const exampleExport = () => ({ ndjson: ndjsonLine(row(), null, CREATED_AT), csv: CSV_HEADER + csvRow(row()) });
