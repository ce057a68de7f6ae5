// The two response forms of a scenario (list item and detail), each built in one place, with
// the zod schemas that document them in the OpenAPI document.
import { z } from '@hono/zod-openapi';
import type { Scenario } from '../db/schema.ts';
import { TimestampSchema } from '../http/openapi.ts';
import { formatTimestamp } from '../http/timestamps.ts';
import type { StoredScenarioData } from './data.ts';
import { AdultSchema, ChildSchema, PROGRAMS } from './schema.ts';
import { findState } from './states.ts';

const Timestamp = TimestampSchema;
const AmountOut = z.string().openapi({ example: '1250.50' });

const StoredAdultSchema = AdultSchema.extend({
  id: z.int().min(1),
  wage_rate: AmountOut,
  unemp_comp: AmountOut,
  monthly_ssi: AmountOut,
  child_support: AmountOut,
  other_unearned: AmountOut,
  monthly_disability: AmountOut,
  soc_sec_retirement: AmountOut,
  work_hours_per_week: AmountOut,
  training_hours_per_week: AmountOut,
}).openapi('StoredAdult');

const StoredChildSchema = ChildSchema.extend({
  id: z.int().min(1),
  ssi_income_amount: AmountOut.optional(),
}).openapi('StoredChild');

function scenarioDataSchema<Token extends z.ZodType<string | number>>(token: Token) {
  return z.object({
    year: z.int(),
    adult: z.array(StoredAdultSchema),
    child: z.array(StoredChildSchema),
    state: z.int(),
    token,
    programs: z.array(z.enum(PROGRAMS)),
    sub_division: z.int().optional(),
  });
}

export const ScenarioListItemSchema = z
  .object({
    id: z.int().openapi({ description: 'Record id; also the pagination cursor' }),
    user_id: z.int(),
    state: z.object({ id: z.int(), name: z.string(), slug: z.string() }),
    token: z.string(),
    expired: z.string().nullable().openapi({ description: 'null while live; else when the retention period ran out' }),
    created_at: Timestamp,
    scenario_data: scenarioDataSchema(z.string().openapi({ example: '482913075561204' })).openapi('ScenarioDataListForm'),
  })
  .openapi('ScenarioListItem');

export const ScenarioDetailSchema = z
  .object({
    token: z.string(),
    scenario_data: scenarioDataSchema(z.int().openapi({ example: 482913075561204 })).openapi('ScenarioDataDetailForm'),
    chart_img: z.string().openapi({ description: 'Signed, expiring URL of an SVG chart of the scenario' }),
    created_at: Timestamp,
    state: z.object({ id: z.int(), name: z.string() }),
  })
  .openapi('ScenarioDetail');

export const ScenarioListSchema = z
  .object({ data: z.array(ScenarioListItemSchema), has_more: z.boolean() })
  .openapi('ScenarioList');

export const ScenarioDetailResponseSchema = z
  .object({
    data: z.object({
      status: z.literal('success'),
      message: z.string().openapi({ example: 'Scenario found' }),
      scenario: ScenarioDetailSchema,
    }),
  })
  .openapi('ScenarioDetailResponse');

export const DeletedResponseSchema = z
  .object({ data: z.object({ status: z.literal('success'), message: z.literal('Scenario deleted') }) })
  .openapi('ScenarioDeleted');

export type ScenarioListItem = z.infer<typeof ScenarioListItemSchema>;
export type ScenarioDetailResponse = z.infer<typeof ScenarioDetailResponseSchema>;

function stateOf(stateId: number) {
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
    scenario_data: JSON.parse(row.scenarioData) as ScenarioListItem['scenario_data'],
  };
}

/** The detail form; its scenario_data.token is the token as a number (exact: 15 digits < 2^53). */
export function toDetailResponse(
  row: Pick<Scenario, 'token' | 'stateId' | 'createdAt'>,
  data: StoredScenarioData | string,
  chartUrl: string,
  message: string,
): ScenarioDetailResponse {
  const state = stateOf(row.stateId);
  const stored = (typeof data === 'string' ? JSON.parse(data) : data) as ScenarioListItem['scenario_data'];
  return {
    data: {
      status: 'success',
      message,
      scenario: {
        token: row.token,
        scenario_data: { ...stored, token: Number(row.token) },
        chart_img: chartUrl,
        created_at: formatTimestamp(row.createdAt),
        state: { id: state.id, name: state.name },
      },
    },
  };
}
