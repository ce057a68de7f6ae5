// How every resource documents its responses: the problem schema, response headers (registered
// once as components and referenced by $ref), and problem responses per route with their codes.
// The domain's scalars (ids, timestamps) are in ./scalars.ts.
import * as z from 'zod';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env.ts';
import { BOOKMARK_PATTERN, MAX_BODY_BYTES, REQUEST_ID_PATTERN } from './limits.ts';
import { int } from './scalars.ts';
import { ApiError, PROBLEM_STATUS, problemBody, STORAGE_FULL, type FieldError, type ProblemCode } from './problem.ts';

/**
 * A value that only the OpenAPI document reads: a response body's schema, say. Where the document
 * is generated (under Node, with the real @hono/zod-openapi) it is built at once. In the Worker,
 * whose `.openapi()` records nothing (src/http/zod-openapi-runtime.ts), it is built the first time
 * anything touches it, through a proxy: nothing does at run time, so the schemas of the replies
 * (about half of the zod schemas the app defines) are never built in a deployed isolate. Request
 * schemas must not go through here: they validate every request.
 */
export function documented<T extends object>(build: () => T): T {
  const installed = (z.ZodType.prototype as unknown as { openapi?: Record<symbol, unknown> }).openapi;
  if (!installed?.[Symbol.for('scenario-service.openapi.records-nothing')]) return build();
  let built: T | undefined;
  const target = () => {
    if (built === undefined) {
      built = build();
      documentedBuilt += 1;
    }
    return built;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(target(), key),
    has: (_, key) => Reflect.has(target(), key),
    set: (_, key, value) => Reflect.set(target(), key, value),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      // Reported configurable: the proxy's own (empty) target cannot vouch for anything else.
      return descriptor && { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
}

let documentedBuilt = 0;

/** How many `documented` values this isolate has built: none, once the app is built (test/startup.test.ts). */
export const documentedBuiltCount = (): number => documentedBuilt;

const EXAMPLE_REQUEST_ID = '8f1e2d3c4b5a6978-AMS';

export const ProblemSchema = documented(() =>
  z
    .strictObject({
      type: z
        .string()
        .max(80)
        .regex(/^tag:scenario-service,2026:problems\/[a-z_]+$/)
        .openapi({ format: 'uri', description: 'A tag URI per code; stable, not meant to be fetched' }),
      title: z.string().max(100).openapi({ description: 'Short summary of the code' }),
      status: int(400, 599),
      detail: z.string().max(1024).openapi({ description: 'What went wrong with this request, for people' }),
      code: z.enum(Object.keys(PROBLEM_STATUS) as [ProblemCode, ...ProblemCode[]]).openapi({ description: 'Stable, machine-readable' }),
      request_id: z.string().regex(REQUEST_ID_PATTERN).max(64).openapi({ description: 'The X-Request-Id of the response' }),
      errors: z
        .array(
          z.strictObject({
            // Names fields of the request, which can be as long as the body itself.
            path: z
              .string()
              .max(MAX_BODY_BYTES)
              .openapi({ description: 'Where in the body (or which query parameter or header)', example: 'scenarioData.adult[0].age' }),
            message: z.string().max(500).openapi({ example: 'must be at most 130' }),
          }),
        )
        .optional()
        .openapi({ description: 'Every problem of the request at once (422, and 400 for queries and headers)' }),
    })
    .openapi('Problem', { description: 'An RFC 9457 problem detail; every error of this API is one, as application/problem+json' }),
);

export type HeaderName =
  | 'X-Request-Id'
  | 'Access-Control-Allow-Origin'
  | 'RateLimit-Policy'
  | 'RateLimit'
  | 'Retry-After'
  | 'ETag'
  | 'Location'
  | 'Idempotent-Replayed'
  | 'WWW-Authenticate'
  | 'X-D1-Bookmark'
  | 'Allow'
  | 'Accept-Patch'
  | 'Content-Disposition'
  | 'API-Version';

// A type alias, not an interface: HeaderObject's `x-` index signature accepts only the former.
type HeaderDefinition = {
  description: string;
  required: boolean;
  schema: { type: 'string' | 'integer'; format?: string; enum?: string[]; pattern?: string; maxLength?: number; minimum?: number; maximum?: number };
  example?: string | number;
};

// Response headers. `required` marks the ones every response that lists them carries.
const HEADERS: Record<HeaderName, HeaderDefinition> = {
  'X-Request-Id': {
    description: "Identifies the request in logs and support requests: Cloudflare's ray id when there is one, else a UUID",
    required: true,
    schema: { type: 'string', maxLength: 64, pattern: REQUEST_ID_PATTERN.source },
    example: EXAMPLE_REQUEST_ID,
  },
  'Access-Control-Allow-Origin': {
    description: 'CORS: pages on any origin may call the API (it authenticates with bearer tokens, never cookies)',
    required: true,
    schema: { type: 'string', enum: ['*'] },
  },
  'RateLimit-Policy': {
    description:
      'The quota that applies (IETF draft-ietf-httpapi-ratelimit-headers): `"per-key"` on requests made with a valid API key ' +
      '(RATE_LIMIT_PER_MINUTE per 60 s), `"failed-auth"` on refused credentials (60 failures per 60 s per client address). ' +
      'The remaining quota is not reported except on 429 (see RateLimit).',
    required: true,
    schema: { type: 'string', maxLength: 64, pattern: '^"(per-key|failed-auth)";q=[1-9][0-9]{0,8};w=60$' },
    example: '"per-key";q=600;w=60',
  },
  RateLimit: {
    description: 'On 429: the quota that ran out, with nothing remaining (r=0) and at most t seconds until it resets',
    required: true,
    schema: { type: 'string', maxLength: 64, pattern: '^"(per-key|failed-auth)";r=0;t=60$' },
    example: '"per-key";r=0;t=60',
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    required: true,
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 3600 },
    example: 60,
  },
  ETag: {
    description: "The scenario's stored version (strong), for If-None-Match and If-Match",
    required: true,
    schema: { type: 'string', maxLength: 19, pattern: '^"v[1-9][0-9]{0,15}"$' },
    example: '"v3"',
  },
  Location: {
    description: 'URL of the new scenario',
    required: true,
    schema: { type: 'string', format: 'uri', maxLength: 2048 },
    example: 'https://scenario-service.example.workers.dev/scenarios/482913075561204',
  },
  'Idempotent-Replayed': {
    description: 'Present on the replay of an earlier create with the same Idempotency-Key',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  },
  'X-D1-Bookmark': {
    description:
      'D1 session bookmark (read replication): the database state this reply reflects. Send it back as the X-D1-Bookmark ' +
      'request header and the next request reads data at least that new, from whichever replica serves it (read-your-writes). ' +
      'Absent when the request did not touch the database; a malformed bookmark sent is ignored.',
    required: false,
    schema: { type: 'string', maxLength: 256, pattern: BOOKMARK_PATTERN.source },
  },
  Allow: {
    description: 'On 405: the methods this path serves',
    required: true,
    schema: { type: 'string', maxLength: 64, pattern: '^[A-Z]+(, [A-Z]+)*$' },
    example: 'POST, PUT',
  },
  'Accept-Patch': {
    description: 'On 415 from PATCH: the patch formats the route takes (RFC 5789)',
    required: true,
    schema: { type: 'string', enum: ['application/merge-patch+json, application/json-patch+json'] },
  },
  'Content-Disposition': {
    description: 'The export as a file to save: scenarios-<UTC date of the export>.jsonl or .csv (what a browser or `curl -OJ` names it)',
    required: true,
    schema: { type: 'string', maxLength: 64, pattern: '^attachment; filename="scenarios-[0-9]{4}-[0-9]{2}-[0-9]{2}\\.(jsonl|csv)"$' },
    example: 'attachment; filename="scenarios-2026-11-21.jsonl"',
  },
  'API-Version': {
    description:
      'The API version the reply is in: the API-Version request header when sent, else the version the account is pinned to, ' +
      'else (no API key) DEFAULT_API_VERSION. GET /api_versions lists the versions and what each changed',
    required: true,
    schema: { type: 'string', maxLength: 10, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' },
    example: '2026-11-21',
  },
  'WWW-Authenticate': {
    description: 'The Bearer challenge (RFC 6750)',
    required: true,
    schema: { type: 'string', maxLength: 200, pattern: '^Bearer ' },
    example: 'Bearer realm="scenario-service", error="invalid_token"',
  },
};

/** Registers the headers and the problem schema on the app's registry (once, in app.ts). */
export function registerSharedComponents(registry: OpenAPIHono<AppEnv>['openAPIRegistry']): void {
  for (const [name, header] of Object.entries(HEADERS)) {
    registry.registerComponent('headers', name, header);
  }
  registry.register('Problem', ProblemSchema);
}

/** Response headers by reference: X-Request-Id and CORS on every response, plus the ones named. */
export function headers(...names: HeaderName[]): Record<string, { $ref: string }> {
  const all: HeaderName[] = ['X-Request-Id', 'API-Version', 'Access-Control-Allow-Origin', 'X-D1-Bookmark', ...names];
  return Object.fromEntries(all.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** How a route authenticates, which decides its 401/429 and rate-limit headers. */
export type Guard = 'api-key' | 'admin' | 'public';

/** Headers of a successful response: requests with a valid API key carry their RateLimit-Policy. */
export function successHeaders(guard: Guard, ...names: HeaderName[]) {
  return headers(...(guard === 'api-key' ? (['RateLimit-Policy'] as const) : []), ...names);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request', 401: 'Missing or invalid credentials', 403: 'Not allowed', 404: 'Not found',
  405: 'Method not allowed', 409: 'Conflict', 412: 'Precondition failed', 413: 'Payload too large',
  422: 'Validation failed', 429: 'Rate limited', 500: 'Internal error', 503: 'Database unavailable',
  507: 'Database full',
};

// Statuses an API-key route answers only after the key was accepted (so RateLimit-Policy is sent);
// 400 can come before authentication (a credential in the query string), 413 too (Content-Length),
// 500 at any point; 503 once D1 stayed unavailable through the retries; 507 once the write was judged.
const AFTER_AUTHENTICATION = new Set([403, 404, 409, 412, 422, 503, 507]);

const EXAMPLE_DETAIL: Record<ProblemCode, string> = {
  invalid_json: 'The request body must be a JSON object sent as Content-Type: application/json',
  invalid_query: 'The query string has 1 problem; see errors',
  invalid_header: 'A request header has 1 problem; see errors',
  unauthorized: 'The API key is not valid',
  forbidden: 'This API key is read-only; writing needs a read_write key',
  not_found: 'No scenario with that token',
  method_not_allowed: 'PATCH is not allowed here; use GET, DELETE, HEAD',
  conflict: 'An account with that e-mail address exists',
  quota_exceeded: 'This account holds 20000 scenarios, its quota of 20000; delete some before creating more',
  too_many_endpoints: 'An account can have at most 10 webhook endpoints; delete one first',
  too_many_share_links: 'A scenario can have at most 20 live share links; revoke one first',
  precondition_failed: 'The scenario has changed since that ETag; fetch it again and reapply your change',
  payload_too_large: 'The request body is larger than 256 KiB',
  unsupported_media_type: 'The request body must be sent as Content-Type: application/json',
  validation_failed: 'The request body has 1 problem; see errors',
  idempotency_conflict: 'This Idempotency-Key was used with a different request body',
  rate_limited: 'This key is over its limit of 600 requests a minute',
  internal_error: 'Something went wrong on our side; quote the request id if you report it',
  insufficient_storage: STORAGE_FULL,
  unavailable: 'The database did not answer through several retries. A change is applied whole or not at all: read it back, or retry (a create is safe to retry with an Idempotency-Key)',
};

/** Where a code reads differently on the admin API or the chart. */
const EXAMPLE_DETAIL_BY_GUARD: Partial<Record<Guard, Partial<Record<ProblemCode, string>>>> = {
  admin: {
    unauthorized: 'The admin API needs Authorization: Bearer <ADMIN_TOKEN>',
    rate_limited: 'Too many failed authentication attempts; wait a minute',
    not_found: 'No account with that id',
  },
  public: { forbidden: 'The chart URL signature is not valid' },
};

const EXAMPLE_ERRORS: Partial<Record<ProblemCode, FieldError[]>> = {
  invalid_query: [{ path: 'limt', message: 'is not a known field' }],
  invalid_header: [{ path: 'idempotency-key', message: 'must be at most 255 characters long' }],
  validation_failed: [{ path: 'scenarioData.adult[0].age', message: 'must be at most 130' }],
};

interface ProblemResponse {
  description: string;
  headers: Record<string, { $ref: string }>;
  /** The codes this status can carry on this route, for tools (the contract tests check them). */
  'x-problem-codes': ProblemCode[];
  content: {
    'application/problem+json': {
      schema: { $ref: string };
      examples: Record<string, { summary: string; value: unknown }>;
    };
  };
}

/**
 * The problem responses of a route, one per status, each naming the codes it can carry: in the
 * description, as one example each, and in `x-problem-codes`. The schema stays the plain Problem
 * (narrowing it per response would give generated clients a different error type per status).
 * Routes behind a credential get 401 and 429; every route gets 400 invalid_query (a parameter it
 * does not take, or a credential in the query string), 500, and 503 (every route reads D1).
 * A code may come with the route's own example detail, `['not_found', 'No key with that id']`: the
 * 404 example is also what a malformed path parameter of the route is answered with (see routing.ts).
 */
export function problemResponses(guard: Guard, ...specs: Array<ProblemCode | readonly [ProblemCode, string]>): Record<number, ProblemResponse> {
  const codes = specs.map((spec) => (typeof spec === 'string' ? spec : spec[0]));
  const routeDetail = new Map(specs.filter((spec) => typeof spec !== 'string'));
  const all: ProblemCode[] = [...(guard === 'public' ? [] : (['unauthorized', 'rate_limited'] as const)), ...codes, 'invalid_query', 'invalid_header', 'internal_error', 'unavailable'];
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of new Set(all)) {
    const status = PROBLEM_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, ProblemResponse> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const extra: HeaderName[] = [];
    if (status === 401) extra.push('WWW-Authenticate', 'RateLimit-Policy');
    if (status === 429) extra.push('Retry-After', 'RateLimit-Policy', 'RateLimit');
    if (status === 412) extra.push('ETag');
    if (status === 503) extra.push('Retry-After');
    if (status === 405) extra.push('Allow');
    if (status === 415) extra.push('Accept-Patch');
    if (guard === 'api-key' && AFTER_AUTHENTICATION.has(status)) extra.push('RateLimit-Policy');
    responses[status] = {
      // Getters: what only the document reads is built when it is generated (or a 404 detail is
      // looked up, routing.ts), not for every route at isolate start.
      get description() {
        return `${STATUS_TEXT[status] ?? 'Error'} (code: ${list.join(', ')})`;
      },
      get headers() {
        return headers(...extra);
      },
      'x-problem-codes': list,
      get content() {
        return {
          'application/problem+json': {
            schema: { $ref: '#/components/schemas/Problem' },
            examples: Object.fromEntries(
              list.map((code) => {
                const errors = EXAMPLE_ERRORS[code];
                const detail = routeDetail.get(code) ?? EXAMPLE_DETAIL_BY_GUARD[guard]?.[code] ?? EXAMPLE_DETAIL[code];
                const error = new ApiError(code, detail, errors ? { errors } : {});
                return [code, { summary: code, value: problemBody(error, EXAMPLE_REQUEST_ID) }];
              }),
            ),
          },
        };
      },
    };
  }
  return responses;
}

/**
 * The 405 a request gets at a path that exists with other methods, for the operations a
 * template-matching tool would route it to (see routesReachedBy405 in routing.ts). It comes before
 * any credential is checked, so it carries no rate-limit header.
 */
export function methodNotAllowedResponse(): ProblemResponse {
  const response = problemResponses('public', 'method_not_allowed')[405];
  if (!response) throw new Error('405 is the status of method_not_allowed');
  return response;
}

/**
 * A JSON request or response body of the given schema, with an example: a value, or a function
 * that makes it. A function is called only when the document is generated (`npm run openapi`, the
 * tests), never at isolate start: examples built by the functions that build real replies (and
 * checked by the request schemas) cost as much as the replies themselves.
 */
export const jsonContent = <T extends z.ZodType>(schema: T, example?: unknown) => ({
  'application/json':
    example === undefined
      ? { schema }
      : typeof example === 'function'
        ? {
            schema,
            get example(): unknown {
              return (example as () => unknown)();
            },
          }
        : { schema, example },
});
