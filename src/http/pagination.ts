// The list query every paginated resource shares (docs/decisions.md, "Listing and pagination"): `limit`
// 1–100 (default 10), `starting_after` / `ending_before`, at most one cursor. Each resource gives its
// cursor's schema. (API versions before 2026-12-01 also take the specification's misspelling
// `endding_before`: src/versions/changes/misspelt-cursor.ts turns it into `ending_before`.)
import * as z from 'zod';
import './zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated
import { ApiError } from './problem.ts';
import type { PageRequest } from './page.ts';

export { toPage, type PageRequest } from './page.ts';

const LIMIT = /^[0-9]{1,3}$/;


export const LimitQuery = z
  .string()
  .regex(LIMIT, 'must be an integer from 1 to 100')
  .refine((v) => !LIMIT.test(v) || (Number(v) >= 1 && Number(v) <= 100), 'must be an integer from 1 to 100')
  .optional()
  // Documented as what it means, an integer (a query string carries its digits), so typed clients
  // take `limit: 10`; the pattern above is what reads it.
  .openapi({ type: 'integer', format: 'int32', description: 'Page length, 1–100 (default 10)', minimum: 1, maximum: 100, default: 10, example: 10 });

const INTEGER_CURSOR = /^[1-9][0-9]{0,15}$/;

/**
 * The whole query of a list paged by a positive integer (scenario ids, revision versions): the
 * cursor is an item's `noun` ("id", "version"), `label` says so in error messages ("a list item
 * id"), `example` is one. No `example` on the cursors: Swagger UI's "Try it out" fills every
 * parameter that has one, and both cursors at once are a 400.
 */
export function pageQuery(noun: string, label: string, example: string) {
  // One schema for the three cursors: they differ only in what the document says of them.
  const base = z.string().regex(INTEGER_CURSOR, `must be a positive integer (${label})`).optional();
  const cursor = (description: string) => base.openapi({ description, maxLength: 16 });
  return z.strictObject({
    limit: LimitQuery,
    starting_after: cursor(`Next page: items older than this ${noun} (the last item's ${noun}, e.g. ${example})`),
    ending_before: cursor(`Previous page: items newer than this ${noun} (the first item's ${noun})`),
  });
}

/** The page a validated integer-cursor query asks for. */
export function toPageRequest(query: z.infer<ReturnType<typeof pageQuery>>): PageRequest<number> {
  return pageRequest(query, Number);
}

/** The two cursor parameters, each validated by `cursor` (described per direction). */
export function cursorQuery(cursor: (description: string) => z.ZodOptional<z.ZodString>, item: string) {
  return {
    starting_after: cursor(`Next page: ${item}s older than this one (the last item's id)`),
    ending_before: cursor(`Previous page: ${item}s newer than this one (the first item's id)`),
  };
}

/** The page a validated list query asks for; 400 invalid_query for two cursors at once. */
export function pageRequest<Cursor>(
  query: { limit?: string | undefined; starting_after?: string | undefined; ending_before?: string | undefined },
  toCursor: (text: string) => Cursor,
): PageRequest<Cursor> {
  const endingBefore = query.ending_before;
  if (query.starting_after !== undefined && endingBefore !== undefined) {
    throw new ApiError('invalid_query', 'Give starting_after or ending_before, not both', {
      errors: [{ path: 'starting_after', message: 'cannot be combined with ending_before' }],
    });
  }
  return {
    limit: query.limit === undefined ? 10 : Number(query.limit),
    startingAfter: query.starting_after === undefined ? undefined : toCursor(query.starting_after),
    endingBefore: endingBefore === undefined ? undefined : toCursor(endingBefore),
  };
}
