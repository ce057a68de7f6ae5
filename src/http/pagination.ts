// The spec's pagination query, shared by every list keyed by a positive integer (scenario ids,
// revision versions): limit 1–100 (default 10), starting_after, endding_before (as the spec spells
// it) or ending_before, at most one cursor. Newest first; the cursor need not name an item.
import { z } from '@hono/zod-openapi';
import { ApiError } from './problem.ts';

const CURSOR = /^[1-9][0-9]{0,15}$/;
const LIMIT = /^[0-9]{1,3}$/;

// The patterns bound the length already; maxLength only states it (one message per bad value).
// No `example` on the cursors: Swagger UI's "Try it out" fills every parameter that has one, and
// both cursors at once are a 400.
const cursor = (label: string, description: string) =>
  z.string().regex(CURSOR, `must be a positive integer (${label})`).optional().openapi({ description, maxLength: 16 });

/**
 * The query schema. The cursor is an item's `noun` ("id", "version"), `label` says so in error
 * messages ("a list item id"), `example` is one.
 */
export function pageQuery(noun: string, label: string, example: string) {
  return z.strictObject({
    limit: z
      .string()
      .regex(LIMIT, 'must be an integer from 1 to 100')
      // Only the range: a value the pattern refused already has its issue (one message per problem).
      .refine((v) => !LIMIT.test(v) || (Number(v) >= 1 && Number(v) <= 100), 'must be an integer from 1 to 100')
      .optional()
      .openapi({ description: 'Page length, 1–100 (default 10)', maxLength: 3, example: '10' }),
    starting_after: cursor(label, `Next page: items older than this ${noun} (the last item's ${noun}, e.g. ${example})`),
    endding_before: cursor(label, `Previous page: items newer than this ${noun} (the first item's ${noun}; spelled as in the spec)`),
    ending_before: cursor(label, 'Same as endding_before'),
  });
}

export type PageQuery = z.infer<ReturnType<typeof pageQuery>>;

/** A page to fetch: its length and at most one cursor. */
export interface PageRequest {
  limit: number;
  /** Items older than this (the next page, newest first). */
  startingAfter?: number | undefined;
  /** Items newer than this (the previous page). */
  endingBefore?: number | undefined;
}

/** The validated query as a page request; both cursors at once (or two different spellings) is 400. */
export function toPageRequest(query: PageQuery): PageRequest {
  const { endding_before: misspelt, ending_before: spelt } = query;
  if (misspelt !== undefined && spelt !== undefined && misspelt !== spelt) {
    throw new ApiError('invalid_query', 'endding_before and ending_before are the same parameter; give one', {
      errors: [{ path: 'ending_before', message: 'conflicts with endding_before' }],
    });
  }
  const endingBefore = misspelt ?? spelt;
  if (query.starting_after !== undefined && endingBefore !== undefined) {
    throw new ApiError('invalid_query', 'Give starting_after or endding_before, not both', {
      errors: [{ path: 'starting_after', message: 'cannot be combined with endding_before' }],
    });
  }
  return {
    limit: query.limit === undefined ? 10 : Number(query.limit),
    startingAfter: query.starting_after === undefined ? undefined : Number(query.starting_after),
    endingBefore: endingBefore === undefined ? undefined : Number(endingBefore),
  };
}
