// 404 for paths the API does not have, 405 (with Allow) for a known path and a wrong method.
// Hono's own methodNotAllowed middleware cannot see that GET /scenarios/save is not
// GET /scenarios/{token} (a token is 15 digits), so the route table matches path parameters with
// the very zod schemas that validate them. The table is derived from what the app already has:
// its routes (method and path) and the createRoute definitions in its OpenAPI registry (parameter
// schemas, the documented 404). The test suite's contract checker routes with the same table.
import type { Context } from 'hono';
import { ApiError } from './problem.ts';

/** What a path segment is matched with: its zod schema, reduced to what routing needs. */
interface ParamSchema {
  safeParse(value: unknown): { success: boolean };
}

/** The parts of a createRoute definition (as held in app.openAPIRegistry.definitions) routing reads. */
export interface RouteDefinition {
  type: string;
  route?: {
    method: string;
    path: string;
    request?: { params?: unknown };
    responses?: Record<string, unknown>;
  };
}

export type Segment = { literal: string } | { param: string; accepts: (value: string) => boolean };

export interface RouteTemplate {
  /** Upper case: GET, POST… (HEAD is served wherever GET is.) */
  method: string;
  /** OpenAPI syntax: /scenarios/{token}. */
  path: string;
  segments: Segment[];
  /** The detail of the route's documented 404 (not_found), or undefined when it has none. */
  notFoundDetail: string | undefined;
}

export type RouteTable = readonly RouteTemplate[];

const splitPath = (path: string) => path.split('/').filter(Boolean);

/** The schema of path parameter `name` in a route's `request.params` (a zod object), if any. */
function paramSchema(params: unknown, name: string): ParamSchema | undefined {
  const shape = (params as { shape?: Record<string, unknown> } | undefined)?.shape;
  const schema = shape?.[name] as Partial<ParamSchema> | undefined;
  return typeof schema?.safeParse === 'function' ? (schema as ParamSchema) : undefined;
}

/** The detail of the not_found example of a route's 404 response (see problemResponses). */
function notFoundDetailOf(responses: Record<string, unknown> | undefined): string | undefined {
  const response = responses?.['404'] as
    | { content?: Record<string, { examples?: Record<string, { value?: { detail?: unknown } }> }> }
    | undefined;
  const detail = response?.content?.['application/problem+json']?.examples?.not_found?.value?.detail;
  return typeof detail === 'string' ? detail : undefined;
}

/**
 * The table of every route the app serves, from `app.routes` (Hono paths, `:name` parameters; the
 * middleware's `ALL` and `*` entries are skipped) and the app's OpenAPI route definitions. Routes
 * without a definition (the document itself, /docs) have no parameters.
 */
export function buildRouteTable(
  routes: ReadonlyArray<{ method: string; path: string }>,
  definitions: readonly RouteDefinition[],
): RouteTable {
  const byKey = new Map<string, NonNullable<RouteDefinition['route']>>();
  for (const definition of definitions) {
    if (definition.type === 'route' && definition.route) byKey.set(`${definition.route.method.toUpperCase()} ${definition.route.path}`, definition.route);
  }
  const table: RouteTemplate[] = [];
  const seen = new Set<string>();
  for (const { method, path: honoPath } of routes) {
    if (method === 'ALL' || honoPath.includes('*')) continue;
    const path = honoPath.replace(/:([^/]+)/g, '{$1}');
    const key = `${method} ${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const definition = byKey.get(key);
    const segments = splitPath(path).map((segment): Segment => {
      const name = /^\{(.+)\}$/.exec(segment)?.[1];
      if (name === undefined) return { literal: segment };
      const schema = paramSchema(definition?.request?.params, name);
      return { param: name, accepts: schema ? (value) => schema.safeParse(value).success : (value) => value.length > 0 };
    });
    table.push({ method, path, segments, notFoundDetail: notFoundDetailOf(definition?.responses) });
  }
  return table;
}

function segmentMatches(segment: Segment, value: string): boolean {
  return 'literal' in segment ? segment.literal === value : segment.accepts(value);
}

/** The routes that serve this path (any method), parameters checked by their schemas. */
export function routesAt(table: RouteTable, path: string): RouteTemplate[] {
  const parts = splitPath(path);
  return table.filter((route) => route.segments.length === parts.length && route.segments.every((s, i) => segmentMatches(s, parts[i] ?? '')));
}

/** Methods served at this path, HEAD included wherever GET is. */
export function allowedMethods(table: RouteTable, path: string): string[] {
  const methods = new Set<string>();
  for (const route of routesAt(table, path)) {
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
  }
  return [...methods];
}

/**
 * The routes a router that ignores parameter schemas (matching `{token}` with any segment, as
 * OpenAPI tools such as Prism do) would pick for a request the app answers 405: a route whose
 * template also fits a literal path served with other methods, like GET /scenarios/{token} for
 * GET /scenarios/save. Their documented responses include 405 (see app.ts).
 */
export function routesReachedBy405(table: RouteTable): RouteTemplate[] {
  /** `other` is a path the route's template fits only through parameters that refuse its literals. */
  const shadows = (route: RouteTemplate, other: RouteTemplate) =>
    other.path !== route.path &&
    other.segments.length === route.segments.length &&
    route.segments.every((mine, i) => {
      const theirs = other.segments[i];
      if (theirs === undefined || !('literal' in theirs)) return false;
      return 'literal' in mine ? mine.literal === theirs.literal : !mine.accepts(theirs.literal);
    });
  return table.filter((route) =>
    table.some((other) => shadows(route, other) && !table.some((r) => r.path === other.path && r.method === route.method)),
  );
}

/** Request text quoted in a detail, cut short so a detail stays small whatever was sent. */
function quote(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 199)}…`;
}

/**
 * Thrown where a request turns out to reach no resource without the route table at hand (a path
 * parameter its schema refuses, in the validation hook); the app's error handler answers it with
 * routeMiss.
 */
export class RouteMissError extends Error {
  override name = 'RouteMissError';
}

/** The error for a request no route takes: 405 when the path exists with other methods, else 404. */
export function routeMiss(table: RouteTable, c: Context): ApiError {
  const methods = allowedMethods(table, c.req.path);
  if (methods.length > 0 && !methods.includes(c.req.method)) {
    return new ApiError('method_not_allowed', `${quote(c.req.method)} is not allowed here; use ${methods.join(', ')}`, {
      headers: { Allow: methods.join(', ') },
    });
  }
  const parts = splitPath(c.req.path);
  // A path that has the shape of a known route but a parameter no resource can have: the route's
  // own not-found answer.
  for (const route of table) {
    if (route.segments.length !== parts.length) continue;
    const badParam = route.segments.some((s, i) => !('literal' in s) && !s.accepts(parts[i] ?? ''));
    const literalsMatch = route.segments.every((s, i) => !('literal' in s) || s.literal === parts[i]);
    if (badParam && literalsMatch) return new ApiError('not_found', route.notFoundDetail ?? 'Not found');
  }
  return new ApiError('not_found', `No route for ${quote(c.req.method)} ${quote(c.req.path)}`);
}
