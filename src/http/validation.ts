// Turns zod's issues into the problem `errors` list (every problem at once, with its path) and
// decides the status by where the bad input was: body 422, query 400, path → no such resource.
import type { z } from '@hono/zod-openapi';
import { ApiError, type FieldError } from './problem.ts';
import { RouteMissError } from './routing.ts';

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

export function fieldErrors(error: z.ZodError): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      // One entry per unknown field, named by its full path, so typos are easy to find.
      for (const key of issue.keys) errors.push({ path: formatPath([...issue.path, key]), message: 'is not a known field' });
    } else {
      errors.push({ path: formatPath(issue.path), message: issue.message });
    }
  }
  return errors;
}

type HookResult = { success: true } | { success: false; error: z.ZodError; target: string };

/** The default hook of every OpenAPI route: throw a problem when validation fails. */
export function validationHook(result: HookResult): void {
  if (result.success) return;
  const errors = fieldErrors(result.error);
  const count = `${errors.length} problem${errors.length === 1 ? '' : 's'}`;
  switch (result.target) {
    case 'json':
      throw new ApiError('validation_failed', `The request body has ${count}; see errors`, { errors });
    case 'query':
      throw new ApiError('invalid_query', `The query string has ${count}; see errors`, { errors });
    case 'header':
      throw new ApiError('invalid_header', `A request header has ${count}; see errors`, { errors });
    default:
      // A path parameter that cannot be valid means the path names nothing here (404, or 405 when
      // the path is another route's: the app's error handler decides, with the route table).
      throw new RouteMissError();
  }
}
