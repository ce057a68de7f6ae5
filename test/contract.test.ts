// The OpenAPI document as a contract: it lists exactly the routes the app serves, names every
// operation, declares the security schemes, headers and problem codes, and the checker that every
// HTTP test runs (helpers/openapi-check.ts) really refuses replies the document does not describe.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { adminApp } from '../admin/src/app.ts';
import { app, openApiDocument } from '../src/app.ts';
import { PROBLEM_STATUS } from '../src/http/problem.ts';
import { admin, api, createAccountWithKey, createScenario, scenarioData } from './helpers/api.ts';
import { freshAddress } from './helpers/contract.ts';
import { checkAgainstDocument, ContractError, documentAccepts, documentedOperations } from './helpers/openapi-check.ts';
import { CreateScenarioBodySchema, SaveScenarioBodySchema } from '../src/scenarios/schema.ts';

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ $ref?: string; name?: string; in?: string; required?: boolean; example?: unknown; schema?: { example?: unknown } }>;
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { headers?: Record<string, { $ref?: string }>; 'x-problem-codes'?: string[]; content?: Record<string, unknown> }>;
}

const doc = JSON.parse(JSON.stringify(await openApiDocument())) as {
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; scheme: string }>;
    parameters: Record<string, { name: string; in: string; example?: unknown; schema?: { example?: unknown } }>;
  };
  security: Array<Record<string, string[]>>;
  tags: Array<{ name: string; description?: string }>;
};

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
);

/** What the app and the admin Worker's app serve, in OpenAPI's path syntax; the document and its reference page aside. */
function servedRoutes(): string[] {
  const routes = [...app.routes, ...adminApp.routes]
    .filter((r) => r.method !== 'ALL' && !r.path.includes('*') && !['/openapi.json', '/docs'].includes(r.path))
    .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
  return [...new Set(routes)].sort();
}

const headerNames = (response: Operation['responses'][string]) => Object.keys(response.headers ?? {});

describe('the OpenAPI document lists exactly what the app serves', () => {
  it('has one operation per route the app serves, and no other', () => {
    const documented = operations.map((o) => `${o.method} ${o.path}`).sort();
    expect(documented).toEqual(servedRoutes());
    expect(documentedOperations().sort()).toEqual(documented);
    expect(documented).toHaveLength(35);
  });

  it('names every operation with a unique camelCase operationId', () => {
    const ids = Object.fromEntries(operations.map((o) => [`${o.method} ${o.path}`, o.operation.operationId]));
    expect(ids).toEqual({
      'GET /me': 'getMe',
      'GET /scenarios': 'listScenarios',
      'GET /scenarios/export': 'exportScenarios',
      'POST /scenarios': 'createScenario',
      'GET /scenarios/{token}': 'viewScenario',
      'DELETE /scenarios/{token}': 'deleteScenarioAlias',
      'PATCH /scenarios/{token}': 'patchScenario',
      'POST /scenarios/{token}/share_links': 'createShareLink',
      'GET /scenarios/{token}/share_links': 'listShareLinks',
      'DELETE /scenarios/{token}/share_links/{id}': 'revokeShareLink',
      'GET /shared/{secret}': 'viewSharedScenario',
      'POST /scenarios/save': 'saveScenario',
      'PUT /scenarios/save': 'saveScenarioPut',
      'DELETE /scenarios/{token}/delete': 'deleteScenario',
      'GET /scenarios/{token}/chart.svg': 'getChart',
      'GET /scenarios/{token}/revisions': 'listRevisions',
      'GET /scenarios/{token}/revisions/{version}': 'viewRevision',
      'POST /scenarios/{token}/revisions/{version}/restore': 'restoreRevision',
      'GET /scenarios/{token}/diff': 'diffRevisions',
      'GET /events': 'listEvents',
      'POST /webhook_endpoints': 'createWebhookEndpoint',
      'GET /webhook_endpoints': 'listWebhookEndpoints',
      'GET /webhook_endpoints/{id}': 'viewWebhookEndpoint',
      'DELETE /webhook_endpoints/{id}': 'deleteWebhookEndpoint',
      'GET /webhook_endpoints/{id}/deliveries': 'listWebhookDeliveries',
      'POST /webhook_endpoints/{id}/rotate_secret': 'rotateWebhookSecret',
      'POST /webhook_endpoints/{id}/enable': 'enableWebhookEndpoint',
      'GET /api_versions': 'listApiVersions',
      'POST /admin/accounts': 'createAccount',
      'PUT /admin/accounts/{id}/api_version': 'setAccountApiVersion',
      'POST /admin/accounts/{id}/keys': 'createApiKey',
      'GET /admin/accounts/{id}/keys': 'listApiKeys',
      'DELETE /admin/keys/{id}': 'revokeApiKey',
      'POST /admin/keys/{id}/roll': 'rollApiKey',
      'POST /admin/accounts/{id}/move': 'moveAccount',
    });
    for (const id of Object.values(ids)) expect(id).toMatch(/^[a-z][A-Za-z]*$/);
  });

  it('writes path parameters as {token} (and {id}, {version}), each declared as a path parameter', () => {
    for (const { method, path, operation } of operations) {
      expect(path, `${method} ${path}`).not.toMatch(/:/);
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (operation.parameters ?? [])
        .map((p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').at(-1) ?? ''] : p))
        .filter((p) => p?.in === 'path')
        .map((p) => p?.name);
      expect(declared.sort(), `${method} ${path}`).toEqual([...inPath].sort());
      if (path.startsWith('/scenarios/{')) expect(inPath[0], `${method} ${path}`).toBe('token');
      if (path.includes('/share_links/')) expect(inPath, `${method} ${path}`).toEqual(['token', 'id']);
      if (path.includes('/revisions/')) expect(inPath, `${method} ${path}`).toEqual(['token', 'version']);
    }
    expect(doc.components.parameters.ScenarioToken).toMatchObject({ name: 'token', in: 'path', required: true });
  });

  it('declares the bearer API-key scheme for the API and the admin scheme for /admin; the chart, share links and the changelog are public', () => {
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.AdminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ ApiKey: [] }]);
    for (const { method, path, operation } of operations) {
      const expected = path.startsWith('/admin/') ? [{ AdminToken: [] }] : path.endsWith('/chart.svg') || path.startsWith('/shared/') || path === '/api_versions' ? [] : undefined;
      expect(operation.security, `${method} ${path}`).toEqual(expected);
    }
  });

  it('tags every operation with a tag it describes', () => {
    const tags = new Map(doc.tags.map((t) => [t.name, t.description]));
    for (const { method, path, operation } of operations) {
      expect(operation.tags?.length, `${method} ${path}`).toBe(1);
      expect(tags.get(operation.tags?.[0] ?? ''), `${method} ${path}`).toBeTruthy();
    }
  });

  it('documents X-Request-Id on every response, and 401/429 with their headers wherever a credential is needed', () => {
    for (const { method, path, operation } of operations) {
      const where = `${method} ${path}`;
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(headerNames(response), `${where} ${status}`).toEqual(expect.arrayContaining(['X-Request-Id', 'Access-Control-Allow-Origin']));
      }
      expect(Object.keys(operation.responses), where).toContain('500');
      if (operation.security?.length === 0) continue;
      expect(headerNames(operation.responses['401'] ?? {}), where).toEqual(expect.arrayContaining(['WWW-Authenticate', 'RateLimit-Policy']));
      expect(headerNames(operation.responses['429'] ?? {}), where).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit-Policy', 'RateLimit']));
    }
    expect(headerNames(doc.paths['/scenarios']?.post?.responses['201'] ?? {})).toEqual(expect.arrayContaining(['Location', 'ETag']));
    expect(headerNames(doc.paths['/scenarios/{token}']?.get?.responses['200'] ?? {})).toContain('ETag');
  });

  it('lists the problem codes of every error response, each belonging to its status', () => {
    for (const { method, path, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const codes = response['x-problem-codes'] ?? [];
        expect(codes.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
        for (const code of codes) expect(PROBLEM_STATUS[code as keyof typeof PROBLEM_STATUS], `${method} ${path} ${status} ${code}`).toBe(Number(status));
        // A share link's page answers a browser's failures as a page too (same status, same codes).
        const types = path === '/shared/{secret}' && ['404', '429'].includes(status) ? ['application/problem+json', 'text/html'] : ['application/problem+json'];
        expect(Object.keys(response.content ?? {}), `${method} ${path} ${status}`).toEqual(types);
      }
    }
  });
});

describe('what validating tools (Prism, Portman) read in the document', () => {
  it('documents 405 with Allow on the operations a template-matching router takes a 405 for', async () => {
    const with405 = operations.filter((o) => o.operation.responses['405']).map((o) => `${o.method} ${o.path}`);
    // GET and DELETE /scenarios/save answer 405 (the path is POST/PUT), and {token} fits "save".
    expect(with405.sort()).toEqual(['DELETE /scenarios/{token}', 'GET /scenarios/{token}', 'PATCH /scenarios/{token}']);
    for (const { operation } of operations.filter((o) => o.operation.responses['405'])) {
      const response = operation.responses['405'];
      expect(response?.['x-problem-codes']).toEqual(['method_not_allowed']);
      expect(headerNames(response ?? {})).toContain('Allow');
    }
    const { key } = await createAccountWithKey();
    for (const method of ['GET', 'DELETE', 'PATCH']) {
      const res = await api(key).send(method, '/scenarios/save');
      expect(res.status).toBe(405);
      expect(res.headers.get('Allow')).toBe('POST, PUT');
    }
  });

  it('states "exactly one of scenarioData / scenario_data" in the body schemas, as the service enforces it', () => {
    const data = scenarioData();
    const token = '123456789012345';
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ['neither', {}, false],
      ['both', { scenarioData: data, scenario_data: data }, false],
      ['scenarioData', { scenarioData: data }, true],
      ['scenario_data', { scenario_data: data }, true],
    ];
    for (const [what, body, valid] of cases) {
      expect(documentAccepts('/components/schemas/CreateScenarioBody', body), `create, ${what}`).toBe(valid);
      expect(documentAccepts('/components/schemas/SaveScenarioBody', { token, ...body }), `save, ${what}`).toBe(valid);
      // The zod schemas that validate the requests (and generate those JSON Schemas) agree.
      expect(CreateScenarioBodySchema.safeParse(body).success, `zod create, ${what}`).toBe(valid);
      expect(SaveScenarioBodySchema.safeParse({ token, ...body }).success, `zod save, ${what}`).toBe(valid);
    }
  });
});

describe("Swagger UI's Try it out, filled in from the document as /docs fills it", () => {
  /** What Swagger UI puts in by itself: every non-path parameter's example, and the body's example. */
  function filledIn(method: string, path: string) {
    const operation = doc.paths[path]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${path} is not in the document`);
    const query = new URLSearchParams();
    const headers: Record<string, string> = {};
    for (const entry of operation.parameters ?? []) {
      const param = entry.$ref ? doc.components.parameters[entry.$ref.split('/').at(-1) ?? ''] : entry;
      const example = param?.example ?? param?.schema?.example;
      if (!param || example === undefined || param.in === 'path') continue;
      if (param.in === 'query') query.set(param.name ?? '', String(example));
      if (param.in === 'header') headers[param.name ?? ''] = String(example);
    }
    const body = operation.requestBody?.content['application/json']?.example as Record<string, unknown> | undefined;
    return { query: query.size > 0 ? `?${query}` : '', headers, body };
  }

  it('succeeds on list, create, view, save and delete (the token typed in, as a user would)', async () => {
    const { key } = await createAccountWithKey();
    await createScenario(key);
    const list = filledIn('GET', '/scenarios');
    expect((await api(key, list.headers).get(`/scenarios${list.query}`)).status).toBe(200);

    const create = filledIn('POST', '/scenarios');
    const first = await api(key, create.headers).post(`/scenarios${create.query}`, create.body);
    expect(first.status).toBe(201);
    const again = await api(key, create.headers).post(`/scenarios${create.query}`, create.body);
    expect(again.status).toBe(201);
    expect(again.headers.get('Idempotent-Replayed'), 'a second try creates a second scenario, not a replay').toBeNull();
    expect(again.body.data.scenario.token).not.toBe(first.body.data.scenario.token);
    const token = first.body.data.scenario.token as string;

    const view = filledIn('GET', '/scenarios/{token}');
    expect((await api(key, view.headers).get(`/scenarios/${token}${view.query}`)).status).toBe(200);

    for (const method of ['POST', 'PUT']) {
      const save = filledIn(method, '/scenarios/save');
      expect((await api(key, save.headers).send(method, `/scenarios/save${save.query}`, { body: { ...save.body, token } })).status).toBe(200);
    }
    const remove = filledIn('DELETE', '/scenarios/{token}/delete');
    expect((await api(key, remove.headers).delete(`/scenarios/${token}/delete${remove.query}`)).status).toBe(200);
  });
});

describe('the checker every HTTP test runs', () => {
  const json = (body: unknown, status: number, headers: Record<string, string> = {}) => ({
    status,
    headers: new Headers({ 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': 'r-1', 'API-Version': '2026-11-21', 'Access-Control-Allow-Origin': '*', ...headers }),
    text: JSON.stringify(body),
  });
  const problem = (status: number, code: string, headers: Record<string, string> = {}) => ({
    ...json({ type: `tag:scenario-service,2026:problems/${code}`, title: 'T', status, detail: 'D', code, request_id: 'r-1' }, status, headers),
    headers: new Headers({ 'Content-Type': 'application/problem+json', 'X-Request-Id': 'r-1', 'API-Version': '2026-11-21', 'Access-Control-Allow-Origin': '*', ...headers }),
  });
  const policy = { 'RateLimit-Policy': '"per-key";q=600;w=60' };

  it('accepts a reply the document describes', () => {
    expect(() => checkAgainstDocument('GET', '/me', json({ name: 'A', email: 'a@example.com', api_version: '2026-11-21' }, 200, policy))).not.toThrow();
    expect(() => checkAgainstDocument('GET', '/scenarios/123456789012345', problem(404, 'not_found', policy))).not.toThrow();
    expect(() => checkAgainstDocument('PATCH', '/me', problem(405, 'method_not_allowed', { Allow: 'GET, HEAD' }))).not.toThrow();
  });

  it('refuses an undocumented status', () => {
    expect(() => checkAgainstDocument('GET', '/me', problem(404, 'not_found', policy))).toThrow(ContractError);
    expect(() => checkAgainstDocument('DELETE', '/scenarios/123456789012345', json({}, 204, policy))).toThrow(/status 204 is not documented/);
  });

  it('refuses a body that does not match, an extra field, a wrong content type', () => {
    expect(() => checkAgainstDocument('GET', '/me', json({ name: 'A' }, 200, policy))).toThrow(/does not match/);
    expect(() => checkAgainstDocument('GET', '/me', json({ name: 'A', email: 'a@example.com', api_version: '2026-11-21', id: 1 }, 200, policy))).toThrow(/does not match/);
    expect(() => checkAgainstDocument('GET', '/me', { ...json({ name: 'A', email: 'a@example.com', api_version: '2026-11-21' }, 200, policy), headers: new Headers({ 'Content-Type': 'text/plain', 'X-Request-Id': 'r', 'API-Version': '2026-11-21', 'Access-Control-Allow-Origin': '*', ...policy }) })).toThrow(/content type text\/plain/);
  });

  it('refuses a reply without API-Version, or naming a version not served, and holds each to its version', () => {
    const me = json({ name: 'A', email: 'a@example.com', api_version: '2026-11-21' }, 200, policy);
    me.headers.delete('API-Version');
    expect(() => checkAgainstDocument('GET', '/me', me)).toThrow(/API-Version \(missing\)/);
    me.headers.set('API-Version', '2099-01-01');
    expect(() => checkAgainstDocument('GET', '/me', me)).toThrow(/not a version/);
    // The same body, held to each version's document: the detail form is 2026-11-21's only.
    const detail = { data: { status: 'success', message: 'Scenario deleted' } };
    expect(() => checkAgainstDocument('DELETE', '/scenarios/123456789012345', json(detail, 200, policy))).not.toThrow();
    expect(() => checkAgainstDocument('DELETE', '/scenarios/123456789012345', json(detail, 200, { ...policy, 'API-Version': '2026-12-01' }))).toThrow(/does not match/);
  });

  it('refuses a missing required header and a problem code the response does not list', () => {
    expect(() => checkAgainstDocument('GET', '/me', json({ name: 'A', email: 'a@example.com', api_version: '2026-11-21' }, 200))).toThrow(/RateLimit-Policy is missing/);
    expect(() => checkAgainstDocument('GET', '/scenarios/123456789012345', problem(404, 'forbidden', policy))).toThrow(/belongs to status 403/);
    expect(() => checkAgainstDocument('POST', '/scenarios', problem(409, 'conflict', policy))).toThrow(/not documented/);
  });

  it('refuses a status that a template-matching tool would find undocumented', () => {
    // GET /scenarios/save reaches no operation of the Worker, but Prism takes it for GET /scenarios/{token}.
    expect(() => checkAgainstDocument('GET', '/scenarios/save', problem(405, 'method_not_allowed', { Allow: 'POST, PUT' }))).not.toThrow();
    expect(() => checkAgainstDocument('GET', '/scenarios/save', problem(413, 'payload_too_large'))).toThrow(/template.*does not document 413/);
  });

  it('refuses a success for a request no operation takes', () => {
    expect(() => checkAgainstDocument('GET', '/nope', json({}, 200))).toThrow(/must be refused/);
    expect(() => checkAgainstDocument('GET', '/scenarios/save', json({}, 200))).toThrow(/must be refused/);
  });
});

describe('rate-limit headers, as documented', () => {
  const perKey = `"per-key";q=${env.RATE_LIMIT_PER_MINUTE};w=60`;

  it('quotes the per-key policy on every reply to a valid key, errors included', async () => {
    const { key } = await createAccountWithKey();
    expect((await api(key).get('/me')).headers.get('RateLimit-Policy')).toBe(perKey);
    expect((await api(key).get('/scenarios/123456789012345')).headers.get('RateLimit-Policy')).toBe(perKey);
    expect((await api(key).post('/scenarios', { scenarioData: scenarioData({ year: 1 }) })).headers.get('RateLimit-Policy')).toBe(perKey);
    const { key: readOnly } = await createAccountWithKey({ scope: 'read' });
    const refused = await api(readOnly).post('/scenarios', { scenarioData: scenarioData() });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('RateLimit-Policy')).toBe(perKey);
  });

  it('quotes the failed-authentication policy on 401, and sends no remaining count outside 429', async () => {
    const res = await api('scn_not-a-key', freshAddress()).get('/me');
    expect(res.status).toBe(401);
    expect(res.headers.get('RateLimit-Policy')).toBe('"failed-auth";q=60;w=60');
    expect(res.headers.get('RateLimit')).toBeNull();
    const ok = await admin().post('/admin/accounts', { name: 'Rate', email: `rate-${crypto.randomUUID()}@example.com` });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('RateLimit-Policy')).toBeNull();
  });
});
