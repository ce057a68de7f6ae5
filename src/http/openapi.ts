// OpenAPI pieces shared by every resource: the problem schema and error responses by code.
import { z } from '@hono/zod-openapi';
import { PROBLEM_STATUS, type ProblemCode } from './problem.ts';

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    detail: z.string(),
    code: z.enum(Object.keys(PROBLEM_STATUS) as [ProblemCode, ...ProblemCode[]]),
    request_id: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi('Problem');

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request', 401: 'Missing or invalid credentials', 403: 'Not allowed for this key',
  404: 'Not found', 405: 'Method not allowed', 409: 'Conflict', 412: 'Precondition failed',
  413: 'Payload too large', 415: 'Unsupported media type', 422: 'Validation failed',
  429: 'Rate limited', 500: 'Internal error',
};

/** Response entries for the given problem codes, grouped by status, each listing its codes. */
export function problemResponses(...codes: ProblemCode[]) {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of [...codes, 'internal_error' as const]) {
    const status = PROBLEM_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, { description: string; content: { 'application/problem+json': { schema: typeof ProblemSchema } } }> = {};
  for (const [status, list] of byStatus) {
    responses[status] = {
      description: `${STATUS_TEXT[status] ?? 'Error'} (code: ${[...new Set(list)].join(', ')})`,
      content: { 'application/problem+json': { schema: ProblemSchema } },
    };
  }
  return responses;
}

/** A JSON request or response body of the given schema. */
export const jsonContent = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } });

export const TimestampSchema = z
  .string()
  .openapi({ description: 'ISO 8601, UTC, six fractional digits', example: '2026-11-21T08:14:03.512000Z' });

/** Errors any route behind an API key can answer with. */
export const AUTHENTICATED_PROBLEMS: ProblemCode[] = ['unauthorized', 'rate_limited'];
