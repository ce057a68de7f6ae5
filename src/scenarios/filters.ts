// The filters of GET /scenarios and GET /scenarios/export: the query parameters (validated and
// documented by the same zod schemas) and what they ask of the data. A malformed value, a FIPS
// code that names no state, a year outside the range scenarios can have or a program outside the
// spec's list is 400 invalid_query: such a filter can match nothing, and a typo that silently
// answers an empty page is worse than a clear refusal (the body's rules refuse the same values).
import * as z from 'zod';
import '../http/zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated
import { parseRfc3339 } from '../http/timestamps.ts';
import { PROGRAMS } from './schema.ts';
import { findState, US_STATES } from './states.ts';

export type Program = (typeof PROGRAMS)[number];

/** What a filtered page asks for; every field given must hold (AND). */
export interface ScenarioFilter {
  stateId?: number | undefined;
  year?: number | undefined;
  program?: Program | undefined;
  /** Milliseconds: scenarios created or saved at or after it (updated_at ≥ it). */
  updatedSince?: number | undefined;
}

export const YEAR_MIN = 1990;
export const YEAR_MAX = 2100;

const STATE_MESSAGE = 'must be the FIPS code of a US state or DC, e.g. 36 for New York';
const YEAR_MESSAGE = `must be a year from ${YEAR_MIN} to ${YEAR_MAX}`;
const UPDATED_SINCE_MESSAGE = 'must be an RFC 3339 timestamp, e.g. 2026-11-21T08:14:03Z or 2026-11-21T09:14:03.512+01:00';

/**
 * An RFC 3339 time as the millisecond a filter "at or after it" starts at: a fraction finer than
 * a millisecond rounds up, since times are stored in whole milliseconds.
 */
export function atOrAfter(text: string): number | null {
  const ms = parseRfc3339(text);
  if (ms === null) return null;
  const fraction = /\.(\d+)/.exec(text)?.[1] ?? '';
  return /[1-9]/.test(fraction.slice(3)) ? ms + 1 : ms;
}

/**
 * The filter parameters. Documented as what they mean (an integer, an enum, a date-time) so
 * typed clients and Swagger UI's "Try it out" offer the right input; the patterns read them.
 */
export const filterQueryFields = {
  state_id: z
    .string()
    .refine((v) => /^[1-9][0-9]?$/.test(v) && findState(Number(v)) !== undefined, STATE_MESSAGE)
    .optional()
    .openapi({
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 56,
      enum: US_STATES.map((s) => s.id) as unknown as string[],
      description: 'Only scenarios in this state (FIPS code: 36 is New York); a code that names no state is 400',
      example: 36 as unknown as string,
    }),
  year: z
    .string()
    .refine((v) => /^[0-9]{4}$/.test(v) && Number(v) >= YEAR_MIN && Number(v) <= YEAR_MAX, YEAR_MESSAGE)
    .optional()
    .openapi({ type: 'integer', format: 'int32', minimum: YEAR_MIN, maximum: YEAR_MAX, description: 'Only scenarios of this year' }),
  program: z
    .enum(PROGRAMS)
    .optional()
    .openapi({ description: 'Only scenarios whose programs include this one' }),
  updated_since: z
    .string()
    .max(40)
    .refine((v) => atOrAfter(v) !== null, UPDATED_SINCE_MESSAGE)
    .optional()
    .openapi({
      format: 'date-time',
      description:
        'Only scenarios created or saved at or after this time (RFC 3339, any offset; an updated_at from a list item works). ' +
        'Pages stay in id order, so a save never moves a scenario within a walk',
    }),
};

/** The filter a validated query asks for. */
export function toFilter(query: { state_id?: string | undefined; year?: string | undefined; program?: Program | undefined; updated_since?: string | undefined }): ScenarioFilter {
  return {
    stateId: query.state_id === undefined ? undefined : Number(query.state_id),
    year: query.year === undefined ? undefined : Number(query.year),
    program: query.program,
    updatedSince: query.updated_since === undefined ? undefined : (atOrAfter(query.updated_since) ?? undefined),
  };
}
