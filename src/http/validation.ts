// Turns zod's issues into the problem `errors` list (every problem at once, with its path) and
// decides the status by where the bad input was: body 422, query 400, path → no such resource.
import type { Context } from 'hono';
import type * as z from 'zod';
import type { AppEnv } from '../env.ts';
import { refuseInput } from './checks.ts';
import { MISSPELT_CURSOR, MISSPELT_CURSOR_HINT } from './misspelt-cursor.ts';
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

const NOUNS: Record<string, string> = {
  number: 'a number',
  int: 'an integer',
  integer: 'an integer',
  string: 'a string',
  boolean: 'true or false',
  array: 'an array',
  object: 'a JSON object',
  record: 'a JSON object',
  null: 'null',
};

/**
 * zod's own wording ("Invalid input: expected number, received undefined") said as the rest of
 * the API says it ("is required", "must be a number"); messages the schemas set themselves pass
 * through as they are.
 */
export function friendly(message: string): string {
  const type = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (type) return type[2] === 'undefined' ? 'is required' : `must be ${NOUNS[type[1] ?? ''] ?? type[1]}`;
  if (message === 'Invalid input: expected an integer') return 'must be an integer';
  const bound = /^Too (big|small): expected (\w+) to (?:have|be) ([<>]=?)(-?[\d.]+)(?: (\w+))?$/.exec(message);
  if (bound) {
    const [, , subject, relation, limit, unit] = bound;
    const word = relation?.startsWith('<') ? (relation === '<' ? 'less than' : 'at most') : relation === '>' ? 'more than' : 'at least';
    if (subject === 'string') return `must be ${word} ${limit} character${limit === '1' ? '' : 's'} long`;
    if (subject === 'array' || subject === 'set') return `must have ${word} ${limit} item${limit === '1' ? '' : 's'}`;
    return `must be ${word} ${limit}${unit ? ` ${unit}` : ''}`;
  }
  const option = /^Invalid option: expected one of (.*)$/.exec(message);
  if (option) return `must be one of ${option[1]?.replaceAll('|', ', ')}`;
  if (/^Invalid string: must match pattern/.test(message)) return 'is not in the expected format';
  if (message === 'Invalid input') return 'is not valid here';
  return message;
}

export function fieldErrors(error: z.ZodError): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      // One entry per unknown field, named by its full path, so typos are easy to find.
      // The misspelt cursor some clients still send is named with the one to send instead.
      for (const key of issue.keys) errors.push({ path: formatPath([...issue.path, key]), message: key === MISSPELT_CURSOR ? MISSPELT_CURSOR_HINT : 'is not a known field' });
    } else {
      errors.push({ path: formatPath(issue.path), message: friendly(issue.message) });
    }
  }
  return errors;
}

type HookResult = { success: true } | { success: false; error: z.ZodError; target: string };

/**
 * The default hook of every OpenAPI route: a failed validation becomes its problem, which rises
 * after the API key is judged (src/http/checks.ts refuseInput).
 */
export async function validationHook(result: HookResult, c: Context<AppEnv>): Promise<void> {
  if (result.success) return;
  await refuseInput(c, validationProblem(result.error, result.target));
}

/** The problem of a failed validation, by where the bad input was. */
function validationProblem(error: z.ZodError, target: string): ApiError | RouteMissError {
  const errors = fieldErrors(error);
  const count = `${errors.length} problem${errors.length === 1 ? '' : 's'}`;
  switch (target) {
    case 'json':
      return new ApiError('validation_failed', `The request body has ${count}; see errors`, { errors });
    case 'query':
      return new ApiError('invalid_query', `The query string has ${count}; see errors`, { errors });
    case 'header':
      return new ApiError('invalid_header', `A request header has ${count}; see errors`, { errors });
    default:
      // A path parameter that cannot be valid means the path names nothing here (404, or 405 when
      // the path is another route's: the app's error handler decides, with the route table).
      return new RouteMissError();
  }
}
