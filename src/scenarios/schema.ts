// The zod schemas of scenario data: they validate requests at the edge and, through
// @hono/zod-openapi, are the OpenAPI description of the same bodies. One definition for both.
import * as z from 'zod';
import '../http/zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated
import { MAX_INT32 } from '../http/scalars.ts';
import { findState } from './states.ts';

export const PROGRAMS = [
  'actc', 'ctc', 'eitc', 'state_tax', 'state_eitc', 'child_care', 'tanf', 'ssi', 'liheap', 'fica',
  'snap', 'medic_aid', 'hix_ptc', 'chip', 'housing', 'wic', 'pandemic', 'fed_tax', 'nslp',
] as const;

export const TOKEN_PATTERN = /^[1-9][0-9]{14}$/;
export const DECIMAL_PATTERN = /^[0-9]{1,12}(\.[0-9]{1,6})?$/;
/** The longest string DECIMAL_PATTERN takes: 12 digits, the point, 6 digits. */
export const DECIMAL_MAX_LENGTH = 19;
const MAX_HOURS_PER_WEEK = 168;
/** The largest amount the pattern allows (12 digits before the point, 6 after); larger numbers are refused too. */
const MAX_AMOUNT = 999_999_999_999.999999;

/**
 * A problem found by a `.check()`, as superRefine's ctx.addIssue would report it (a custom issue
 * after which the other checks still run). The field checks of this file push issues themselves:
 * superRefine gives the parse state of every value it checks an `addIssue` closure (an allocation
 * and a new object shape per field per request). superRefine stays only where a check needs
 * `when` (to run after a hard failure elsewhere), a few times per body.
 */
function report(payload: z.core.ParsePayload, message: string, path: PropertyKey[] = []): void {
  payload.issues.push({ code: 'custom', message, input: payload.value, path, continue: true });
}

/**
 * Money or hours: a string holding a non-negative decimal ("1250.50"); a JSON number is accepted
 * and stored as its string. Anything that would not round-trip as a plain decimal is refused.
 */
function amount(max?: number) {
  const hint = max === undefined ? '' : ` of at most ${max}`;
  const message = `must be a non-negative decimal number${hint} (at most 12 digits before the point and 6 after), as a string such as "12.50" (a JSON number is accepted)`;
  const decimal = z
    .union(
      [
        z.string().regex(DECIMAL_PATTERN, { error: message }).openapi({ maxLength: DECIMAL_MAX_LENGTH }),
        z
          .number()
          .min(0, { error: message })
          .check((payload) => {
            // A number that does not print as a plain decimal (1e21, 1e-7); a negative one has its issue from min().
            if (payload.value >= 0 && !DECIMAL_PATTERN.test(String(payload.value))) report(payload, message);
          })
          .openapi({ maximum: max ?? MAX_AMOUNT }),
      ],
      { error: message },
    )
    .openapi({ example: '0' });
  if (max === undefined) return decimal;
  // Only values the members took are compared: the others already have their one issue.
  return decimal.check((payload) => {
    const value = payload.value;
    const text = typeof value === 'number' ? String(value) : value;
    if (DECIMAL_PATTERN.test(text) && Number(text) > max) report(payload, `must be at most ${max}`);
  });
}
/**
 * A field schema built once and shared by every field of its kind (zod schemas are immutable, so
 * a shared one validates exactly as copies would, and the document renders each use the same):
 * the adult and child fields are some 30 of them, most of what building the bodies costs.
 */
function shared<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

const money = shared(() => amount());
const hours = shared(() => amount(MAX_HOURS_PER_WEEK));
// zod-to-openapi renders a literal of several values as its first value only; state it in full.
const flag = shared(() => z.literal([0, 1], { error: 'must be 0 or 1' }).openapi({ type: 'integer', format: 'int32', minimum: 0, maximum: 1, enum: [0, 1] }));
/**
 * An integer field of a request body. zod's own int check marks a non-integer as a hard stop,
 * which also skips the cross-field checks of every enclosing object (a missing state_id would go
 * unreported next to `age: 1.5`); this one reports the same problem but lets the rest be checked,
 * so every problem is listed at once.
 */
function integer(min: number, max: number) {
  return z
    .number()
    .check((payload) => {
      // One message per bad value: not an integer, or else out of range.
      const n = payload.value;
      if (!Number.isInteger(n)) report(payload, 'must be an integer');
      else if (n < min) report(payload, `must be at least ${min}`);
      else if (n > max) report(payload, `must be at most ${max}`);
    })
    .openapi({ type: 'integer', format: 'int32', minimum: min, maximum: max });
}
const code = shared(() => integer(0, MAX_INT32));
const age = shared(() => integer(0, 130));
/** At most 20 adults or children, so a position is at most 20. */
export const MAX_MEMBERS = 20;
const positionId = shared(() =>
  integer(1, MAX_INT32).optional().openapi({ maximum: MAX_MEMBERS, description: '1-based position in the array; filled in when missing' }),
);

/** The fields of an adult; the stored form (forms.ts) reuses them with amounts as strings. */
export const ADULT_FIELDS = {
  id: positionId(),
  age: age(),
  nickname: z.string().max(100).optional().openapi({ example: 'Parent A' }),
  wage_rate: money(),
  yes_or_no: flag(),
  adult_type: code(),
  is_married: flag(),
  is_veteran: flag(),
  unemp_comp: money(),
  is_pregnant: flag().optional(),
  monthly_ssi: money(),
  child_support: money(),
  other_unearned: money(),
  monthly_disability: money(),
  soc_sec_retirement: money(),
  same_snap_household: flag(),
  work_hours_per_week: hours(),
  is_spouse_in_household: flag(),
  same_legal_hh_fed_state: flag(),
  training_hours_per_week: hours(),
  aged_or_disability_income: code(),
};

export const AdultSchema = z.strictObject(ADULT_FIELDS).openapi('Adult');

export const CHILD_FIELDS = {
  id: positionId(),
  age: age(),
  sex: code(),
  caretaker: code(),
  in_school: code(),
  yes_or_no: flag(),
  is_disabled: flag(),
  cc_rate_category: code(),
  ssi_income_amount: money().optional(),
  child_care_setting: code(),
  relation_to_caretaker: code(),
  same_legal_hh_fed_state: flag(),
  purchase_and_prepare_meals_together: flag(),
};

export const ChildSchema = z.strictObject(CHILD_FIELDS).openapi('Child');

/**
 * Cross-field checks run even when a field has failed, so every problem is reported at once;
 * they still need an object to look at (a body of `null` or `[]` has failed already). One
 * exception, zod's: an adult or child list over its cap is refused unparsed, and then no check of
 * the objects around it runs (the state rules included) — that list's problem comes first.
 */
const whenObject = { when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value) };

const stateId = shared(() => integer(1, MAX_INT32));

/** Ids must be 1-based positions; checked on the array so the position is known. */
function checkPositions(items: unknown, ctx: z.RefinementCtx) {
  if (!Array.isArray(items)) return;
  items.forEach((item: unknown, index) => {
    if (item === null || typeof item !== 'object' || !('id' in item)) return;
    const id = item.id;
    // Ids that are not positive integers already have their own issue from positionId().
    if (typeof id === 'number' && Number.isInteger(id) && id >= 1 && id !== index + 1) {
      ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `must be ${index + 1}, the 1-based position in the array (or left out)` });
    }
  });
}

export const ScenarioDataInputSchema = z
  .strictObject({
    year: integer(1990, 2100),
    state_id: stateId().optional().openapi({ description: 'FIPS code of the state (required, or give `state`)', example: 36 }),
    state: stateId().optional().openapi({ description: 'Synonym of state_id; when both are given they must agree' }),
    token: z
      .union([z.string().max(64), z.int().openapi({ format: 'int64', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })])
      .optional()
      .openapi({ description: 'Ignored: the stored value is always the scenario token' }),
    programs: z
      .array(z.enum(PROGRAMS))
      .min(1)
      .max(PROGRAMS.length)
      .check((payload) => {
        const seen = new Set<string>();
        payload.value.forEach((p, index) => {
          if (seen.has(p)) report(payload, `"${p}" is listed twice`, [index]);
          seen.add(p);
        });
      }),
    adult: z.array(AdultSchema).min(1).max(MAX_MEMBERS).superRefine(checkPositions, { when: () => true }),
    child: z.array(ChildSchema).max(MAX_MEMBERS).superRefine(checkPositions, { when: () => true }).optional(),
    sub_division: integer(1, MAX_INT32).optional(),
  })
  .superRefine(
    (data, ctx) => {
      const given = data as { state_id?: unknown; state?: unknown };
      const { state_id: byId, state: bySynonym } = given;
      if (byId === undefined && bySynonym === undefined) {
        ctx.addIssue({ code: 'custom', path: ['state_id'], message: 'is required (or give its synonym `state`)' });
        return;
      }
      if (byId !== undefined && bySynonym !== undefined && byId !== bySynonym) {
        ctx.addIssue({ code: 'custom', path: ['state'], message: 'must equal state_id when both are given' });
        return;
      }
      const [key, value] = byId !== undefined ? ['state_id', byId] : ['state', bySynonym];
      // Out-of-range values already have their own issue from stateId().
      if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_INT32 && !findState(value)) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'is not a known state (FIPS code of a US state or DC)' });
      }
    },
    whenObject,
  )
  .openapi('ScenarioDataInput');

export type ScenarioDataInput = z.infer<typeof ScenarioDataInputSchema>;
export type AdultInput = z.infer<typeof AdultSchema>;
export type ChildInput = z.infer<typeof ChildSchema>;

/** A request body carries the data as `scenarioData` (the spec's name) or `scenario_data`. */
function requireOneDataKey(body: { scenarioData?: unknown; scenario_data?: unknown }, ctx: z.RefinementCtx) {
  const camel = body.scenarioData !== undefined;
  const snake = body.scenario_data !== undefined;
  if (!camel && !snake) ctx.addIssue({ code: 'custom', path: ['scenarioData'], message: 'is required' });
  if (camel && snake) ctx.addIssue({ code: 'custom', path: ['scenario_data'], message: 'give scenarioData or scenario_data, not both' });
}

const dataFields = {
  scenarioData: ScenarioDataInputSchema.optional(),
  scenario_data: ScenarioDataInputSchema.optional().openapi({ description: 'Accepted as a synonym of scenarioData' }),
};
/**
 * requireOneDataKey for the document: JSON Schema cannot see a refinement, so the body schemas
 * state it as well. With additionalProperties false, one `required` of the two is exactly one.
 */
const exactlyOneDataKey = { oneOf: [{ required: ['scenarioData'] }, { required: ['scenario_data'] }] };

export const CreateScenarioBodySchema = z
  .strictObject(dataFields)
  .superRefine(requireOneDataKey, whenObject)
  .openapi('CreateScenarioBody', { description: 'The data as scenarioData (or scenario_data; exactly one of the two)', ...exactlyOneDataKey });

export const SaveScenarioBodySchema = z
  .strictObject({
    token: z
      .union(
        [
          z.string().regex(TOKEN_PATTERN).openapi({ maxLength: 15 }),
          z.int().min(100_000_000_000_000).max(999_999_999_999_999).openapi({ format: 'int64' }),
        ],
        { error: 'must be a scenario token: 15 digits, as a string or a number' },
      )
      .openapi({ description: 'The token of the scenario to save', example: '482913075561204' }),
    ...dataFields,
  })
  .superRefine(requireOneDataKey, whenObject)
  .openapi('SaveScenarioBody', { description: 'The token and the data as scenarioData (or scenario_data; exactly one of the two)', ...exactlyOneDataKey });

export type CreateScenarioBody = z.infer<typeof CreateScenarioBodySchema>;
export type SaveScenarioBody = z.infer<typeof SaveScenarioBodySchema>;
