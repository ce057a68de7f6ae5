// The version layer: the one place between the routes and the wire that knows API versions. It
// reads the request's API-Version header (400 invalid_header for one it does not know), brings an
// older request's form up to the newest before the route sees it, turns the route's newest reply
// into the request's version as the route hands it over (c.json), and names that version in the
// API-Version header of every reply. Routes and workflows build only the newest shapes.
//
// Which version: the header when sent; otherwise the account's pinned version, which the key's
// row brings back in the route's own batch (db/api-keys.ts `keyWithAccount`: no extra round trip);
// otherwise (no key: the document, the changelog, the chart, the admin API, a refused key)
// DEFAULT_API_VERSION. A request without the header that uses an old form is therefore brought up
// tentatively, and refused once its batch shows the account's version no longer takes that form
// (only read operations have request changes: see test/versions.layer.test.ts).
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../http/problem.ts';
import type { Operation, ReplyTransform, RequestChange } from './change.ts';
import { API_VERSIONS, knownApiVersion, NEWEST_API_VERSION, SPEC_API_VERSION, type ApiVersion } from '../api-versions.ts';
import { VERSIONS } from './versions.ts';

/** What serving one version takes, worked out once per isolate. */
interface Plan {
  /** Per operation, the transforms that turn its newest reply into this version's, in order. */
  replies: Map<string, ReplyTransform[]>;
  /** Request changes made after this version: its old forms are brought up to the newest. */
  upgrades: Set<RequestChange>;
}

function plan(index: number): Plan {
  const replies = new Map<string, ReplyTransform[]>();
  const upgrades = new Set<RequestChange>();
  // Undo the newer versions' changes, newest version first and, within one, its last change first.
  for (const newer of VERSIONS.slice(0, index)) {
    for (const change of [...newer.changes].reverse()) {
      for (const [operation, transform] of Object.entries(change.replies)) {
        if (transform) replies.set(operation, [...(replies.get(operation) ?? []), transform]);
      }
      if (change.request) upgrades.add(change.request);
    }
  }
  return { replies, upgrades };
}

const PLANS = new Map<string, Plan>(VERSIONS.map((version, index) => [version.version, plan(index)]));

/** Every request change, oldest first (the order a request of the oldest version is brought up in). */
const REQUEST_CHANGES: RequestChange[] = VERSIONS.flatMap((v) => v.changes.flatMap((c) => (c.request ? [c.request] : []))).reverse();

export const API_VERSION_HEADER = 'API-Version';

/** What an unknown API-Version header is answered with. */
export function invalidVersion(sent: string): ApiError {
  return new ApiError('invalid_header', `API-Version must be one of ${API_VERSIONS.join(', ')} (newest first)`, {
    errors: [{ path: API_VERSION_HEADER, message: `${JSON.stringify(sent.slice(0, 40))} is not a version; known: ${API_VERSIONS.join(', ')}` }],
  });
}

/** The operation of a route path (Hono's form) and method; HEAD is answered by GET's route. */
const operationOf = (method: string, path: string) => `${method === 'HEAD' ? 'GET' : method} ${path}`;

/** The operation the request is routed to, before its route runs: the last route that takes the method. */
function routedOperation(c: Context<AppEnv>): string | undefined {
  const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
  const route = c.req.matchedRoutes.findLast((r) => r.method === method);
  return route && operationOf(method, route.path);
}

/** DEFAULT_API_VERSION, read without the rest of the configuration (every request may need it). */
function defaultVersion(env: AppEnv['Bindings']): ApiVersion {
  return knownApiVersion(env.DEFAULT_API_VERSION) ?? SPEC_API_VERSION;
}

export const versionLayer: MiddlewareHandler<AppEnv> = (c, next) => {
  const sent = c.req.raw.headers.get(API_VERSION_HEADER);
  let requested: ApiVersion | undefined;
  if (sent !== null) {
    requested = knownApiVersion(sent.trim());
    if (requested === undefined) {
      const error = invalidVersion(sent);
      error.headers[API_VERSION_HEADER] = defaultVersion(c.env);
      throw error;
    }
  }
  const version = () => requested ?? knownApiVersion(c.get('keyed')?.caller?.accountApiVersion) ?? defaultVersion(c.env);

  // Requests: an old form brought up to the newest (for a version that predates its change).
  let tentative: RequestChange[] | undefined;
  if (REQUEST_CHANGES.length > 0 && requested !== NEWEST_API_VERSION && c.req.url.includes('?')) {
    const operation = routedOperation(c) as Operation | undefined;
    const url = new URL(c.req.url);
    const upgrades = requested === undefined ? undefined : PLANS.get(requested)!.upgrades;
    let upgraded = false;
    for (const change of REQUEST_CHANGES) {
      if (operation === undefined || !change.operations.includes(operation) || !change.uses(url)) continue;
      // A version that has the change leaves the old form to the newest route, which refuses it.
      if (upgrades && !upgrades.has(change)) continue;
      if (!upgrades) (tentative ??= []).push(change);
      change.upgrade(url);
      upgraded = true;
    }
    if (upgraded) c.req.raw = new Request(url, c.req.raw);
  }

  // Replies: the route's newest reply in the request's version, as the route hands it over. A
  // request that asked for the newest by name needs nothing here.
  if (requested !== NEWEST_API_VERSION) {
    const json = c.json;
    c.json = ((object: unknown, ...rest: unknown[]) => {
      const served = version();
      if (tentative) {
        const upgrades = PLANS.get(served)!.upgrades;
        const refused = tentative.find((change) => !upgrades.has(change));
        if (refused) throw refused.refusal();
      }
      if (served !== NEWEST_API_VERSION) {
        const transforms = PLANS.get(served)!.replies.get(operationOf(c.req.method, c.req.routePath));
        if (transforms) for (const transform of transforms) object = transform(object);
      }
      return (json as (...args: unknown[]) => Response)(object, ...rest);
    }) as typeof c.json;
  }

  // A reply that renders a version of its own choosing (the OpenAPI document) names it itself.
  return next().then(() => {
    const headers = c.res.headers;
    if (!headers.has(API_VERSION_HEADER)) headers.set(API_VERSION_HEADER, version());
  });
};
