// Checks a reply against the OpenAPI document: the status must be documented for the operation
// (found with the Workers' own route tables, src/http/routing.ts, whose path parameters are matched
// by the zod schemas that validate them; the document's parameter schemas must agree), the
// content type must be one it lists, the body must validate against its schema, and its required
// headers must be present and valid. Replies to paths no operation takes (404, 405) must be
// problem+json Problems, and documented on any operation a tool matching paths by template alone
// would take the request for (GET /scenarios/save → 405 is one GET /scenarios/{token} documents).
// Used by send() in api.ts, so every HTTP test checks the contract. Each reply is checked against
// the document of the API version it names in its API-Version header (which it must carry).
//
// @cfworker/json-schema interprets schemas (no code generation), so it runs inside workerd. It is
// test code only: the Worker itself validates with zod.
import { Validator, type Schema } from '@cfworker/json-schema';
import { adminRouteTable } from '../../admin/src/app.ts';
import { openApiDocument, routeTable as apiRouteTable } from '../../src/app.ts';
import { routesAt, type RouteTemplate } from '../../src/http/routing.ts';
import { PROBLEM_STATUS } from '../../src/http/problem.ts';
import { API_VERSIONS, knownApiVersion, type ApiVersion } from '../../src/api-versions.ts';

type JsonObject = { [key: string]: unknown };

/** Every route served under the service's origin: the API Worker's, and the admin Worker's (/admin). */
const routeTable = () => [...apiRouteTable(), ...adminRouteTable()];

interface Ref {
  $ref: string;
}

interface HeaderObject {
  required?: boolean;
  schema?: Schema;
}

interface MediaTypeObject {
  schema?: Schema;
  /** JSON Lines (application/x-ndjson): the schema each line must match. */
  'x-line-schema'?: Ref;
}

interface ResponseObject {
  'x-problem-codes'?: string[];
  headers?: Record<string, HeaderObject | Ref>;
  content?: Record<string, MediaTypeObject>;
}

interface ParameterObject {
  name: string;
  in: string;
  schema?: Schema;
}

interface OperationObject {
  operationId?: string;
  parameters?: Record<string, ParameterObject | Ref>;
  responses: Record<string, ResponseObject | Ref>;
}

interface Document {
  paths: Record<string, Record<string, OperationObject>>;
  components: JsonObject;
}

const BASE_URI = 'https://contract.test/openapi.json';
/** Served by the app but not operations of the API: the document itself and its reference page. */
const META = [/^\/openapi\.json$/, /^\/docs(\/.*)?$/];

/**
 * A copy the validator can index (it annotates what it indexes, and walks the whole document as
 * if it were a schema): without examples, where an `id` would read as a schema id, and with
 * parameter lists as objects keyed by position, since it does not descend into other arrays.
 */
function indexable(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => indexable(item));
    return key === 'parameters' ? Object.fromEntries(items.map((item, i) => [String(i), item])) : items;
  }
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'example' && k !== 'examples')
      .map(([k, v]) => [k, indexable(v, k)]),
  );
}
const documents = new Map<ApiVersion, Document>();
for (const version of API_VERSIONS) documents.set(version, indexable(await openApiDocument(version)) as Document);
/** The document the reply being checked is held to (set per check: the checks run synchronously). */
let doc = documents.get(API_VERSIONS[0])!;

export class ContractError extends Error {
  override name = 'ContractError';
}

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

function isRef(value: unknown): value is Ref {
  return typeof value === 'object' && value !== null && typeof (value as Ref).$ref === 'string';
}

/** Follows a local $ref (one level is all the document uses); returns the object and its pointer. */
function resolve<T>(value: T | Ref, pointer: string): { value: T; pointer: string } {
  if (!isRef(value)) return { value, pointer };
  if (!value.$ref.startsWith('#/')) throw new ContractError(`Unsupported $ref ${value.$ref}`);
  let target: unknown = doc;
  for (const part of value.$ref.slice(2).split('/')) {
    target = (target as JsonObject)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  if (target === undefined) throw new ContractError(`Unresolved $ref ${value.$ref}`);
  return { value: target as T, pointer: value.$ref.slice(1) };
}

const validators = new Map<Document, Map<string, Validator>>();

/** A validator of the schema at `pointer` in the document, with every $ref of the document resolvable. */
function validatorAt(pointer: string, of: Document = doc): Validator {
  let byPointer = validators.get(of);
  if (!byPointer) validators.set(of, (byPointer = new Map()));
  let validator = byPointer.get(pointer);
  if (!validator) {
    validator = new Validator({ $ref: `${BASE_URI}#${pointer}` }, '2020-12', false);
    validator.addSchema(of as unknown as Schema, BASE_URI);
    byPointer.set(pointer, validator);
  }
  return validator;
}

/** Whether the schema at `pointer` in a version's document (default the newest; e.g. /components/schemas/CreateScenarioBody) accepts a value. */
export function documentAccepts(pointer: string, instance: unknown, version: ApiVersion = API_VERSIONS[0]): boolean {
  return validatorAt(pointer, documents.get(version)).validate(instance).valid;
}

function validateAt(pointer: string, instance: unknown, what: string): void {
  const result = validatorAt(pointer).validate(instance);
  if (result.valid) return;
  // The deepest errors say what is wrong; the outer ones only that a subschema failed.
  const errors = result.errors
    .filter((e) => !/subschema|does not match schema|Items did not match/.test(e.error))
    .slice(0, 5)
    .map((e) => `  ${e.instanceLocation}: ${e.error} (${e.keywordLocation})`);
  throw new ContractError(`${what} does not match the OpenAPI document:\n${errors.join('\n') || result.errors[0]?.error}`);
}

interface Route {
  method: string;
  template: string;
  /** The service's route: its segments, parameters matched by their zod schemas. */
  served: RouteTemplate;
  /** Pointers to the document's schema of each path parameter, by name. */
  params: Map<string, string>;
  operation: OperationObject;
}

/** The service's routes (the document and its page aside), each with its documented operation in `doc`. */
const routesOf = (): Route[] => routeTable().flatMap((served) => {
  const template = served.path;
  const operation = doc.paths[template]?.[served.method.toLowerCase()];
  if (!operation) {
    if (served.method === 'GET' && META.some((re) => re.test(template))) return [];
    throw new ContractError(`${served.method} ${template} is served but not in the document`);
  }
  const base = `/paths/${escapePointer(template)}/${served.method.toLowerCase()}`;
  const params = new Map<string, string>();
  for (const [i, p] of Object.entries(operation.parameters ?? {})) {
    const { value, pointer } = resolve(p, `${base}/parameters/${i}`);
    if (value.in === 'path') params.set(value.name, `${pointer}/schema`);
  }
  for (const segment of served.segments) {
    if ('param' in segment && !params.has(segment.param)) {
      throw new ContractError(`${served.method} ${template} does not declare its path parameter ${segment.param}`);
    }
  }
  return [{ method: served.method, template, served, params, operation }];
});
const routesByDocument = new Map<Document, Route[]>();
for (const document of documents.values()) {
  doc = document;
  routesByDocument.set(document, routesOf());
}
doc = documents.get(API_VERSIONS[0])!;
let routes = routesByDocument.get(doc)!;

/** Holds the next checks to `version`'s document. */
function useDocument(version: ApiVersion): void {
  doc = documents.get(version)!;
  routes = routesByDocument.get(doc)!;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Whether the document's schemas of the route's path parameters take these path segments. */
function documentTakes(route: Route, parts: string[]): boolean {
  return route.served.segments.every((segment, i) => {
    const part = parts[i] ?? '';
    return 'literal' in segment ? segment.literal === part : validatorAt(route.params.get(segment.param) ?? '').validate(part).valid;
  });
}

/**
 * The documented operation a request reaches, found as the Worker routes it. Throws when the
 * document's parameter schemas disagree with the Worker's about the path.
 */
export function findOperation(method: string, pathname: string): Route | undefined {
  const raw = pathname.split('/').filter(Boolean);
  const parts = raw.map(decode);
  // A segment that decodes to a slash (%2F) stays one segment, as the router sees it.
  const path = `/${parts.map((part, i) => (part.includes('/') ? raw[i] : part)).join('/')}`;
  const served = routesAt(routeTable(), path).find((r) => r.method === method);
  const route = routes.find((r) => r.served === served);
  if (route && !documentTakes(route, parts)) {
    throw new ContractError(`${method} ${pathname}: the Worker routes it to ${route.template}, whose documented parameters refuse it`);
  }
  const claimed = routes.find((r) => r !== route && r.method === method && r.served.segments.length === parts.length && documentTakes(r, parts));
  if (claimed) throw new ContractError(`${method} ${pathname}: the document's ${claimed.template} takes it, but the Worker does not route it there`);
  return route;
}

/** Operations a tool that matches `{param}` with any segment (Prism, for one) would route a request to. */
function templateMatches(method: string, pathname: string): Route[] {
  const parts = pathname.split('/').filter(Boolean).map(decode);
  return routes.filter(
    (r) => r.method === method && r.served.segments.length === parts.length && r.served.segments.every((s, i) => !('literal' in s) || s.literal === parts[i]),
  );
}

/** All documented operations (of the newest document), as "METHOD /template". */
export function documentedOperations(): string[] {
  return routesByDocument.get(documents.get(API_VERSIONS[0])!)!.map((r) => `${r.method} ${r.template}`);
}

function headerValue(raw: string, schema: Schema | undefined): unknown {
  return schema?.type === 'integer' && /^-?[0-9]+$/.test(raw) ? Number(raw) : raw;
}

/** A problem's status is the reply's, and its code one that status carries (and, when given, one of `codes`). */
function checkProblem(body: unknown, status: number, codes: string[] | undefined, what: string): void {
  const { status: bodyStatus, code } = body as { status: number; code: keyof typeof PROBLEM_STATUS };
  if (bodyStatus !== status) throw new ContractError(`${what}: the problem says status ${bodyStatus}`);
  if (PROBLEM_STATUS[code] !== status) throw new ContractError(`${what}: code ${code} belongs to status ${PROBLEM_STATUS[code]}`);
  if (codes && !codes.includes(code)) throw new ContractError(`${what}: code ${code} is not documented here; documented: ${codes.join(', ')}`);
}

function parseBody(mediaType: string, text: string, what: string): unknown {
  if (!/[/+]json$/.test(mediaType)) return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new ContractError(`${what}: the body is not JSON although the content type is ${mediaType}`);
  }
}

export interface CheckedReply {
  status: number;
  headers: Headers;
  text: string;
}

/** Throws a ContractError when the reply to `method path` is not what the document describes. */
export function checkAgainstDocument(method: string, path: string, reply: CheckedReply): void {
  const verb = method.toUpperCase();
  if (verb === 'OPTIONS') return; // CORS preflight: answered by the CORS middleware, not an operation
  const named = reply.headers.get('API-Version');
  const version = knownApiVersion(named);
  if (version === undefined) throw new ContractError(`${verb} ${path} → ${reply.status}: API-Version ${named ?? '(missing)'} is not a version the service serves`);
  useDocument(version);
  const pathname = new URL(path, 'http://x').pathname;
  const what = `${verb} ${path} → ${reply.status}`;
  const route = findOperation(verb === 'HEAD' ? 'GET' : verb, pathname);
  const mediaType = (reply.headers.get('Content-Type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

  if (!route) {
    if ((verb === 'GET' || verb === 'HEAD') && META.some((re) => re.test(pathname))) return;
    // No operation takes it: the app's 404 and 405, or whatever refused it before routing (401, 413).
    if (reply.status < 400) throw new ContractError(`${what}: no documented operation takes this request, so it must be refused`);
    if (reply.status === 405 && !reply.headers.get('Allow')) throw new ContractError(`${what}: a 405 must name the allowed methods in Allow`);
    for (const loose of templateMatches(verb === 'HEAD' ? 'GET' : verb, pathname)) {
      if (loose.operation.responses[String(reply.status)] === undefined) {
        throw new ContractError(`${what}: a tool matching paths by template takes this for ${loose.method} ${loose.template}, which does not document ${reply.status}`);
      }
    }
    if (!reply.headers.get('X-Request-Id')) throw new ContractError(`${what}: no X-Request-Id`);
    if (verb === 'HEAD') return;
    if (mediaType !== 'application/problem+json') throw new ContractError(`${what}: expected application/problem+json, got ${mediaType || 'no content type'}`);
    const problem = parseBody(mediaType, reply.text, what);
    validateAt('/components/schemas/Problem', problem, what);
    checkProblem(problem, reply.status, undefined, what);
    return;
  }

  const label = `${what} (${route.operation.operationId ?? `${route.method} ${route.template}`})`;
  const base = `/paths/${escapePointer(route.template)}/${route.method.toLowerCase()}/responses`;
  const status = String(reply.status);
  const key = [status, `${status[0]}XX`, 'default'].find((k) => route.operation.responses[k] !== undefined);
  if (key === undefined) {
    throw new ContractError(`${label}: status ${status} is not documented; documented: ${Object.keys(route.operation.responses).join(', ')}`);
  }
  const { value: response, pointer } = resolve(route.operation.responses[key] as ResponseObject | Ref, `${base}/${escapePointer(key)}`);

  for (const [name, entry] of Object.entries(response.headers ?? {})) {
    const { value: header, pointer: headerPointer } = resolve(entry, `${pointer}/headers/${escapePointer(name)}`);
    const raw = reply.headers.get(name);
    if (raw === null) {
      if (header.required) throw new ContractError(`${label}: the required header ${name} is missing`);
      continue;
    }
    if (header.schema) validateAt(`${headerPointer}/schema`, headerValue(raw, header.schema), `${label}, header ${name}: ${raw}`);
  }

  if (verb === 'HEAD') return;
  if (!response.content) {
    if (reply.text !== '') throw new ContractError(`${label}: the document describes no body, but one was sent`);
    return;
  }
  const media = response.content[mediaType];
  if (!media) {
    throw new ContractError(`${label}: content type ${mediaType || '(none)'} is not documented; documented: ${Object.keys(response.content).join(', ')}`);
  }
  if (!media.schema) return;
  const lineSchema = media['x-line-schema'];
  if (lineSchema) {
    const lines = reply.text.split('\n');
    if (lines.pop() !== '') throw new ContractError(`${label}: the last line does not end with a line break`);
    lines.forEach((line, i) => validateAt(lineSchema.$ref.slice(1), parseBody('application/json', line, `${label}, line ${i + 1}`), `${label}, line ${i + 1}`));
  }
  const body = parseBody(mediaType, reply.text, label);
  validateAt(`${pointer}/content/${escapePointer(mediaType)}/schema`, body, `${label}, body`);
  if (mediaType === 'application/problem+json') checkProblem(body, reply.status, response['x-problem-codes'], label);
}
