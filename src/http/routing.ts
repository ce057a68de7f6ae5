// 404 for paths the API does not have, 405 (with Allow) for a known path and a wrong method.
// Hono's own methodNotAllowed middleware cannot see that GET /scenarios/save is not
// GET /scenarios/{token} (a token is 15 digits), so the routes' path parameters are matched
// with the same patterns that validate them.
import type { Context } from 'hono';
import { ApiError } from './problem.ts';

const PARAM_PATTERNS: Record<string, RegExp> = {
  token: /^[1-9][0-9]{14}$/,
  id: /^[1-9][0-9]{0,15}$/,
};

const NOT_FOUND_DETAIL: Record<string, string> = {
  token: 'No scenario with that token',
};

interface RouteShape {
  method: string;
  segments: string[];
}

let routeTable: RouteShape[] = [];

/** Called once with the app's routes after they are all registered. */
export function registerRoutes(routes: ReadonlyArray<{ method: string; path: string }>): void {
  const seen = new Set<string>();
  routeTable = [];
  for (const { method, path } of routes) {
    if (method === 'ALL' || path.includes('*') || seen.has(`${method} ${path}`)) continue;
    seen.add(`${method} ${path}`);
    routeTable.push({ method, segments: path.split('/').filter(Boolean) });
  }
}

function segmentMatches(pattern: string, value: string): boolean {
  if (!pattern.startsWith(':')) return pattern === value;
  const regex = PARAM_PATTERNS[pattern.slice(1)];
  return regex ? regex.test(value) : value.length > 0;
}

/** Methods served at this path, HEAD included wherever GET is. */
export function allowedMethods(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  const methods = new Set<string>();
  for (const route of routeTable) {
    if (route.segments.length !== parts.length) continue;
    if (route.segments.every((segment, i) => segmentMatches(segment, parts[i] ?? ''))) {
      methods.add(route.method);
      if (route.method === 'GET') methods.add('HEAD');
    }
  }
  return [...methods];
}

/** Request text quoted in a detail, cut short so a detail stays small whatever was sent. */
function quote(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 199)}…`;
}

/** The error for a request no route takes: 405 when the path exists with other methods, else 404. */
export function routeMiss(c: Context): ApiError {
  const methods = allowedMethods(c.req.path);
  if (methods.length > 0 && !methods.includes(c.req.method)) {
    return new ApiError('method_not_allowed', `${quote(c.req.method)} is not allowed here; use ${methods.join(', ')}`, {
      headers: { Allow: methods.join(', ') },
    });
  }
  const parts = c.req.path.split('/').filter(Boolean);
  // A path that has the shape of a known route but a parameter no resource can have.
  for (const route of routeTable) {
    if (route.segments.length !== parts.length) continue;
    const param = route.segments.find((s, i) => s.startsWith(':') && !segmentMatches(s, parts[i] ?? ''));
    const rest = route.segments.every((s, i) => s.startsWith(':') || s === parts[i]);
    if (param && rest) return new ApiError('not_found', NOT_FOUND_DETAIL[param.slice(1)] ?? 'Not found');
  }
  return new ApiError('not_found', `No route for ${quote(c.req.method)} ${quote(c.req.path)}`);
}
