// The response forms of a scenario (the list item; the scenario, which is the list item and its
// chart), each built in one place, with the zod schemas that document them in the OpenAPI document.
// These are the newest API version's shapes: the older versions' are made from them by the version
// change modules (src/versions/changes/), which no route or workflow knows of.
import * as z from 'zod';
import '../http/zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated
import type { Scenario } from '../db/schema.ts';
import { documented } from '../http/openapi.ts';
import { idSchema, int, TimestampSchema } from '../http/scalars.ts';
import { formatTimestamp } from '../http/timestamps.ts';
import { ADULT_FIELDS, CHILD_FIELDS, DECIMAL_MAX_LENGTH, DECIMAL_PATTERN, MAX_MEMBERS, PROGRAMS, TOKEN_PATTERN } from './schema.ts';
import { findState, US_STATES } from './states.ts';

const Timestamp = TimestampSchema;
/** Stored amounts are always strings (a number sent in was stored as its string). */
const AmountOut = () => z.string().max(DECIMAL_MAX_LENGTH).regex(DECIMAL_PATTERN).openapi({ example: '1250.50' });
const position = () => int(1, MAX_MEMBERS).openapi({ description: '1-based position in the array' });
const Token = () => z.string().length(15).regex(TOKEN_PATTERN).openapi({ example: '482913075561204' });

// Built from the input fields rather than extending Adult/Child, which would render as an allOf
// whose strict second half refuses every field it does not restate.
const StoredAdultSchema = documented(() =>
  z
    .strictObject({
      ...ADULT_FIELDS,
      id: position(),
      wage_rate: AmountOut(),
      unemp_comp: AmountOut(),
      monthly_ssi: AmountOut(),
      child_support: AmountOut(),
      other_unearned: AmountOut(),
      monthly_disability: AmountOut(),
      soc_sec_retirement: AmountOut(),
      work_hours_per_week: AmountOut(),
      training_hours_per_week: AmountOut(),
    })
    .openapi('StoredAdult'),
);

const StoredChildSchema = documented(() =>
  z
    .strictObject({ ...CHILD_FIELDS, id: position(), ssi_income_amount: AmountOut().optional() })
    .openapi('StoredChild'),
);

const StateId = () => int(1, 56).openapi({ description: 'FIPS code of the state', example: 36 });
const StateName = () => z.enum(US_STATES.map((s) => s.name) as [string, ...string[]]).openapi({ example: 'New York' });

/** A state as a revision names it. */
export const StateSummary = () => z.strictObject({ id: StateId(), name: StateName() });

function scenarioDataSchema<Token extends z.ZodType<string | number>>(token: Token) {
  return z.strictObject({
    year: int(1990, 2100),
    adult: z.array(StoredAdultSchema).min(1).max(MAX_MEMBERS),
    child: z.array(StoredChildSchema).max(MAX_MEMBERS),
    state: StateId(),
    token,
    programs: z.array(z.enum(PROGRAMS)).min(1).max(PROGRAMS.length),
    sub_division: int(1, 2_147_483_647).optional(),
  });
}

/** scenario_data as every reply shows it: its token a string. */
export const ScenarioDataSchema = documented(() => scenarioDataSchema(Token()).openapi('ScenarioDataListForm'));

/** The fields of a scenario in every form that shows one (the list item; with chart_img, the scenario). */
const scenarioFields = () => ({
  id: idSchema().openapi({ description: 'Record id; also the pagination cursor', example: 1042 }),
  user_id: idSchema().openapi({ description: 'The owning account', example: 7 }),
  state: z.strictObject({
    id: StateId(),
    name: StateName(),
    slug: z.enum(US_STATES.map((s) => s.slug) as [string, ...string[]]).openapi({ example: 'new-york' }),
  }),
  token: Token(),
  expired: Timestamp.nullable().openapi({ description: 'null while live; else when the retention period ran out' }),
  created_at: Timestamp,
  updated_at: Timestamp.openapi({ description: 'When it was created or last saved (or restored); what updated_since compares' }),
  version: idSchema().openapi({ description: 'The stored version: 1 when created, one more per save or restore (the N of its ETag "vN")', example: 1 }),
  scenario_data: ScenarioDataSchema,
});

export const ScenarioListItemSchema = documented(() => z.strictObject(scenarioFields()).openapi('ScenarioListItem'));

/** A scenario as view, create, save and restore answer it: the list item and its chart. */
export const ScenarioSchema = documented(() =>
  z
    .strictObject({
      ...scenarioFields(),
      chart_img: z
        .string()
        .max(2048)
        .openapi({ format: 'uri', description: 'Signed, expiring URL of an SVG chart of the scenario; needs no API key' }),
    })
    .openapi('Scenario'),
);

export const ScenarioListSchema = documented(() =>
  z
    .strictObject({
      data: z.array(ScenarioListItemSchema).max(100).openapi({ description: 'Newest first; at most `limit` items' }),
      has_more: z.boolean().openapi({ description: 'Whether more items follow in the direction of paging' }),
    })
    .openapi('ScenarioList'),
);

export const ScenarioResponseSchema = documented(() => z.strictObject({ data: ScenarioSchema }).openapi('ScenarioResponse'));

export const ScenarioDeletionSchema = documented(() =>
  z
    .strictObject({ data: z.strictObject({ token: Token(), deleted: z.literal(true) }) })
    .openapi('ScenarioDeletion'),
);

export type ScenarioListItem = z.infer<typeof ScenarioListItemSchema>;
export type ScenarioForm = z.infer<typeof ScenarioSchema>;
export type ScenarioResponse = z.infer<typeof ScenarioResponseSchema>;

export function stateOf(stateId: number) {
  const state = findState(stateId);
  // The foreign key and validation keep stateId within the list; this guards against drift.
  if (!state) throw new Error(`unknown state ${stateId}`);
  return state;
}

export function toListItem(row: Scenario, expiredAtMs: number | null): ScenarioListItem {
  const state = stateOf(row.stateId);
  return {
    id: row.id,
    user_id: row.accountId,
    state: { id: state.id, name: state.name, slug: state.slug },
    token: row.token,
    expired: expiredAtMs === null ? null : formatTimestamp(expiredAtMs),
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
    version: row.version,
    scenario_data: JSON.parse(row.scenarioData) as ScenarioListItem['scenario_data'],
  };
}

/**
 * The list item as JSON text, exactly `JSON.stringify(toListItem(row, expiredAtMs))`, without
 * parsing and re-serialising scenario_data: the stored text is already the list form's
 * scenario_data, written by JSON.stringify. The export writes one per line.
 */
export function listItemJson(row: Scenario, expiredAtMs: number | null): string {
  const { scenario_data: _data, ...head } = toListItem({ ...row, scenarioData: 'null' }, expiredAtMs);
  const text = JSON.stringify(head);
  return `${text.slice(0, -1)},"scenario_data":${row.scenarioData}}`;
}

/** A scenario as view, create, save and restore answer it: the list item and its signed chart URL. */
export function toScenarioForm(row: Scenario, expiredAtMs: number | null, chartUrl: string): ScenarioForm {
  return { ...toListItem(row, expiredAtMs), chart_img: chartUrl };
}

/** The reply to a delete. */
export function toDeletion(token: string) {
  return { data: { token, deleted: true as const } };
}
