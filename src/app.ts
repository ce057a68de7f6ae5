// The app: middleware, one sub-app per resource, the OpenAPI document and /docs, error handlers.
import { OpenAPIHono } from '@hono/zod-openapi';
import { adminRoutes } from './admin/routes.ts';
import { chartRoutes } from './chart/routes.ts';
import { docsRoutes } from './docs/routes.ts';
import type { AppEnv } from './env.ts';
import { errorHandlers } from './http/errors.ts';
import { corsPreflight, limitBodySize, requestContext } from './http/middleware.ts';
import { methodNotAllowedResponse, registerSharedComponents } from './http/openapi.ts';
import { refuseCredentialsInQuery } from './http/query.ts';
import { buildRouteTable, routesReachedBy405, type RouteTable } from './http/routing.ts';
import { validationHook } from './http/validation.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { eventRoutes } from './events/routes.ts';
import { meRoutes } from './me/routes.ts';
import { revisionRoutes } from './revisions/routes.ts';
import { scenarioRoutes } from './scenarios/routes.ts';

const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

app.use('*', requestContext);
app.use('*', corsPreflight);
app.use('*', refuseCredentialsInQuery);
app.use('*', limitBodySize);

const routes = app
  .route('/', meRoutes)
  .route('/scenarios', chartRoutes)
  .route('/scenarios', scenarioRoutes)
  .route('/scenarios', revisionRoutes)
  .route('/events', eventRoutes)
  .route('/webhook_endpoints', webhookRoutes)
  .route('/admin', adminRoutes);
app.route('/', docsRoutes);

app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'scn_ + 36 base62 characters',
  description: 'An API key from the account dashboard (Developers section): `Authorization: Bearer scn_…`',
});
app.openAPIRegistry.registerComponent('securitySchemes', 'AdminToken', {
  type: 'http',
  scheme: 'bearer',
  description: 'The admin token (ADMIN_TOKEN secret), for the account dashboard only; API keys are refused here',
});
registerSharedComponents(app.openAPIRegistry);

const DESCRIPTION = `Household scenarios for public-benefit analysis: the adults and children of a family, their
incomes, the US state and year, and the programs to evaluate.

Every route except the chart and this document needs \`Authorization: Bearer <API key>\`.

**Errors** are RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\`; each
response below lists the codes it can carry. A path the API does not have answers 404
(\`not_found\`); a known path with a method it does not serve answers 405 (\`method_not_allowed\`)
with an \`Allow\` header. Every route refuses query parameters it does not list (400
\`invalid_query\`, each named in \`errors\`), and a credential in a URL (\`?api_key=\`, a key as any
value) is refused on every path before authentication: send keys only in \`Authorization\`.

**Rate limits**: requests per API key (\`RateLimit-Policy: "per-key"\`) and failed authentications
per client address (\`"failed-auth"\`); over either, 429 with \`Retry-After\` and \`RateLimit\`.`;

let table: RouteTable | undefined;

/**
 * Every route the app serves, with its path parameters' schemas: for 404/405 and the contract
 * tests. Built on first use (the first request no route takes), not at isolate start.
 */
export function routeTable(): RouteTable {
  table ??= buildRouteTable(app.routes, app.openAPIRegistry.definitions);
  return table;
}

let document: ReturnType<typeof app.getOpenAPI31Document> | undefined;

/**
 * The OpenAPI 3.1 document, generated from the route definitions once per isolate (the
 * `servers` entry is the caller's origin, added per request).
 */
export function openApiDocument(): ReturnType<typeof app.getOpenAPI31Document> {
  document ??= withLicense(with405s(app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Scenario Service',
      version: '1.0.0',
      description: DESCRIPTION,
      // Placeholders until the operator names a support address and a licence.
      contact: { name: 'Scenario Service maintainers', email: 'api@scenario-service.example' },
    },
    tags: [
      { name: 'Scenarios', description: "The caller's household scenarios: list, view, create, save, delete, and their charts" },
      { name: 'Revisions', description: "A scenario's history: every version a create, save or restore stored; view, restore and diff them" },
      { name: 'Events', description: "Every change to the caller's scenarios, kept 30 days" },
      { name: 'Webhooks', description: 'Endpoints that receive the events as signed POSTs (Standard Webhooks), and their delivery attempts' },
      { name: 'Account', description: 'The account an API key belongs to' },
      { name: 'Admin', description: 'For the account dashboard, under the admin token: accounts and their API keys' },
    ],
    security: [{ ApiKey: [] }],
  })));
  return document;
}

/**
 * 405 on the operations that tools matching paths by template alone (Prism as a validating proxy,
 * for one) route a 405 to: GET /scenarios/save answers 405, and such a tool takes it for
 * GET /scenarios/{token}. OpenAPI cannot describe the methods a path lacks, so this is where the
 * answer can be documented; a path with no operation for the method at all is refused by those
 * tools before the service is asked.
 */
function with405s(generated: ReturnType<typeof app.getOpenAPI31Document>): ReturnType<typeof app.getOpenAPI31Document> {
  const paths = generated.paths ?? {};
  for (const route of routesReachedBy405(routeTable())) {
    const operation = paths[route.path]?.[route.method.toLowerCase() as 'get'];
    if (!operation?.responses) continue;
    const sorted = Object.entries({ ...operation.responses, 405: methodNotAllowedResponse() }).sort(([a], [b]) => a.localeCompare(b));
    operation.responses = Object.fromEntries(sorted);
  }
  return generated;
}

/** The 3.1 licence object (an SPDX identifier), which the generator's 3.0-typed config cannot take. */
function withLicense(generated: ReturnType<typeof app.getOpenAPI31Document>): ReturnType<typeof app.getOpenAPI31Document> {
  return { ...generated, info: { ...generated.info, license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } } };
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * The `servers` entry of the served document: the origin it was served from, and which
 * environment that is (OWASP API9, "inventory-environment"): `npm start` serves on loopback;
 * anything else is a deployment, which this project runs as production only.
 */
export function servedFrom(requestUrl: string) {
  const { origin, hostname } = new URL(requestUrl);
  const local = LOOPBACK_HOST.test(hostname);
  return {
    url: origin,
    description: local ? 'Local development (npm start): the server that served this document' : 'Production: the deployment that served this document',
    'x-internal': local,
  };
}

app.get('/openapi.json', (c) => c.json({ ...openApiDocument(), servers: [servedFrom(c.req.url)] }, 200, { 'Cache-Control': 'public, max-age=300' }));

const { onError, notFound } = errorHandlers(routeTable);
app.onError(onError);
app.notFound(notFound);

/** The app's type, for Hono's typed client (`hc<AppType>`). */
export type AppType = typeof routes;
export { app };

