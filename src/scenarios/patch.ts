// PATCH /scenarios/{token}: the two patch formats (RFC 7396 JSON Merge Patch, RFC 6902 JSON Patch),
// their documents' schemas, and applying one to scenario_data as the detail form shows it. The
// result is then validated exactly as a save's scenarioData is (ScenarioDataInputSchema). Applying
// is done by well-kept libraries: json-merge-patch (its `apply` only) and rfc6902 (which the diff
// already uses). Nothing here knows HTTP or D1.
/// <reference path="./json-merge-patch.d.ts" />
import * as z from 'zod';
import '../http/zod-openapi-runtime.ts'; // gives schemas .openapi(), read only where the document is generated
import applyMergePatch from 'json-merge-patch/lib/apply.js';
import { applyPatch, type Operation } from 'rfc6902';
import { documented } from '../http/openapi.ts';
import { fieldErrors, formatPath } from '../http/validation.ts';
import { ApiError, type FieldError } from '../http/problem.ts';
import { ScenarioDataInputSchema, type ScenarioDataInput } from './schema.ts';
import type { ScenarioListItem } from './forms.ts';

export const MERGE_PATCH = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';
export type PatchFormat = typeof MERGE_PATCH | typeof JSON_PATCH;
/** The Accept-Patch header (RFC 5789 §3.1): sent with a 415. */
export const ACCEPT_PATCH = `${MERGE_PATCH}, ${JSON_PATCH}`;

/** At most this many operations in one JSON Patch (the body's 256 KiB bound the rest). */
export const MAX_PATCH_OPERATIONS = 1000;

/** The patch format a Content-Type names, or null for any other type (415). */
export function patchFormatOf(contentType: string | undefined): PatchFormat | null {
  const essence = contentType?.split(';')[0]?.trim().toLowerCase();
  return essence === MERGE_PATCH || essence === JSON_PATCH ? essence : null;
}

// Names that would reach an object's prototype: json-merge-patch stops at them and rfc6902 skips
// them, silently; here they are refused, so no patch is ever applied in part.
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** RFC 6901 JSON Pointer: "" or a sequence of /token, with ~ only as ~0 or ~1. */
const POINTER = /^(\/([^~/]|~[01])*)*$/;
const pointer = () =>
  z
    .string()
    .max(1024)
    .regex(POINTER, { error: 'must be a JSON Pointer (RFC 6901), such as /adult/0/wage_rate' })
    .refine((p) => !p.split('/').some((token) => FORBIDDEN_NAMES.has(token)), { error: 'is not a known field' })
    .openapi({ example: '/adult/0/wage_rate' });
const value = () => z.unknown().optional().openapi({ description: 'Any JSON value (add, replace, test)', example: '21.00' });

const OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
const NEEDS_VALUE = new Set(['add', 'replace', 'test']);

/**
 * One RFC 6902 operation: `value` present (null included) for add, replace and test, `from` for
 * move and copy. Other members are ignored, as RFC 6902 §4 says.
 */
const operation = () =>
  z
    .object({ op: z.enum(OPS), path: pointer(), from: pointer().optional().openapi({ description: 'The source (move, copy)' }), value: value() })
    .check((payload) => {
      const o = payload.value;
      const issue = (member: string) => payload.issues.push({ code: 'custom', message: `is required for ${o.op}`, input: o, path: [member], continue: true });
      if (NEEDS_VALUE.has(o.op) && !('value' in o)) issue('value');
      if ((o.op === 'move' || o.op === 'copy') && o.from === undefined) issue('from');
    });

// The two documents' schemas are built the first time a PATCH reads one (documented: in the Worker,
// through a proxy that builds on first touch), not while every isolate starts: only PATCH uses them.
export const JsonPatchSchema = documented(() =>
  z
    .array(operation())
    .max(MAX_PATCH_OPERATIONS)
    .openapi('JsonPatch', {
      description: `An RFC 6902 JSON Patch: operations applied in order to scenario_data as the detail form shows it (at most ${MAX_PATCH_OPERATIONS}); all or nothing`,
      example: [
        { op: 'test', path: '/adult/0/wage_rate', value: '18.50' },
        { op: 'replace', path: '/adult/0/wage_rate', value: '21.00' },
      ],
    }),
);

/** Keys anywhere in a merge patch that would reach a prototype. */
function forbiddenKeys(value: unknown, path: PropertyKey[], found: PropertyKey[][]): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (FORBIDDEN_NAMES.has(key)) found.push([...path, key]);
    else forbiddenKeys(inner, [...path, key], found);
  }
}

export const MergePatchSchema = documented(() =>
  z
    .object({})
    .catchall(z.unknown())
    .openapi('MergePatch', {
      description:
        'An RFC 7396 JSON Merge Patch of scenario_data as the detail form shows it: members given replace those stored, null removes ' +
        'one, arrays (adult, child, programs) are replaced whole',
      example: { year: 2027, programs: ['snap', 'eitc'] },
    }),
);

type PatchDocument = { format: typeof MERGE_PATCH; patch: Record<string, unknown> } | { format: typeof JSON_PATCH; patch: Operation[] };

/** The body, parsed and checked as a document of its format: 422 listing every problem. */
export function readPatch(format: PatchFormat, body: unknown): PatchDocument {
  const schema = format === MERGE_PATCH ? MergePatchSchema : JsonPatchSchema;
  const result = schema.safeParse(body);
  // Looked for in the body as parsed: zod's output object would take `__proto__` as its prototype.
  const found: PropertyKey[][] = [];
  if (format === MERGE_PATCH) forbiddenKeys(body, [], found);
  if (!result.success || found.length > 0) {
    const errors = [...found.map((path) => ({ path: formatPath(path), message: 'is not a known field' })), ...(result.success ? [] : fieldErrors(result.error))];
    throw new ApiError('validation_failed', `The ${format === MERGE_PATCH ? 'merge patch' : 'JSON Patch'} has ${count(errors)}; see errors`, { errors });
  }
  return format === MERGE_PATCH ? { format, patch: body as Record<string, unknown> } : { format, patch: body as Operation[] };
}

const count = (errors: FieldError[]) => `${errors.length} problem${errors.length === 1 ? '' : 's'}`;

/**
 * The patch applied to `current` (never changed: the patch works on a copy). A JSON Patch applies
 * whole or not at all: a failed `test` is 409 conflict, another operation that cannot apply (a
 * path that names nothing) 422, each naming the operation.
 */
export function applyPatchDocument(current: ScenarioListItem['scenario_data'], document: PatchDocument): unknown {
  const target = structuredClone(current) as unknown;
  if (document.format === MERGE_PATCH) return applyMergePatch(target, document.patch);
  // rfc6902 goes on after a failed operation; RFC 6902 §5 stops at the first, so the copy is dropped then.
  const results = applyPatch(target, document.patch);
  const failed = results.findIndex((result) => result !== null);
  if (failed === -1) return target;
  const error = results[failed]!;
  const op = document.patch[failed]!;
  if (error.name === 'TestError') {
    throw new ApiError('conflict', `JSON Patch operation ${failed} (test of ${op.path}) failed: the scenario's data there is not the value given`, {
      errors: [{ path: formatPath([failed, 'value']), message: 'does not equal the stored value' }],
    });
  }
  const where = error.name === 'MissingError' ? 'names nothing in the scenario data' : 'cannot be applied there';
  throw new ApiError('validation_failed', `JSON Patch operation ${failed} (${op.op} ${op.path}) ${where}; nothing was changed`, {
    errors: [{ path: formatPath([failed, op.op === 'move' || op.op === 'copy' ? 'from' : 'path']), message: where }],
  });
}

/**
 * The patched data validated as a save's scenarioData, and its token unchanged: 422 listing every
 * problem (paths under `scenario_data`). A token left as it is may be the number (the detail
 * form's) or the same digits as a string.
 */
export function validatePatched(patched: unknown, token: string): ScenarioDataInput {
  const errors: FieldError[] = [];
  if (patched !== null && typeof patched === 'object' && !Array.isArray(patched)) {
    const given = (patched as { token?: unknown }).token;
    if (given !== Number(token) && given !== token) {
      errors.push({ path: 'scenario_data.token', message: `is the scenario's token and cannot be changed or removed (it is ${token})` });
    }
  }
  const result = ScenarioDataInputSchema.safeParse(patched);
  if (!result.success) errors.push(...fieldErrors(result.error).map((e) => ({ ...e, path: e.path ? `scenario_data.${e.path}` : 'scenario_data' })));
  if (errors.length > 0) throw new ApiError('validation_failed', `The patched scenario_data has ${count(errors)}; see errors`, { errors });
  return result.data!;
}
