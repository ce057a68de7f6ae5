// The scalars resources share in their schemas: bounded integers, record ids and timestamps, each
// documented as what the service really sends or accepts.
import * as z from 'zod';
import './zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated

export const MAX_INT32 = 2_147_483_647;
/** Database ids: SQLite integers, exact in JSON up to 2^53 − 1. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/** An integer with the bounds and format the document states. */
export function int(min: number, max: number) {
  return z.int().min(min).max(max).openapi({ format: max > MAX_INT32 || min < -MAX_INT32 - 1 ? 'int64' : 'int32' });
}

/** A record id (positive, int64). */
export const idSchema = () => int(1, MAX_ID);

export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const TimestampSchema = z
  .string()
  .length(27)
  .regex(TIMESTAMP_PATTERN)
  .openapi({ format: 'date-time', description: 'ISO 8601, UTC, six fractional digits', example: '2026-11-21T08:14:03.512000Z' });
