// The app: middleware, one sub-app per resource, the OpenAPI document and /docs, error handlers.
// The document is generated at build time from these very routes (scripts/lib/openapi-document.ts,
// under Node with the real @hono/zod-openapi); the Worker runs src/http/zod-openapi-runtime.ts in its
// place, which validates requests as the real one does and records no OpenAPI metadata.
import './http/zod-config.ts'; // before any schema is built
import { OpenAPIHono } from './http/zod-openapi-runtime.ts';
import { TrieRouter } from 'hono/router/trie-router';
import { adminRoutes } from './admin/routes.ts';
import { chartRoutes } from './scenarios/chart/routes.ts';
import { docsRoutes } from './docs/routes.ts';
import type { AppEnv } from './env.ts';
import { errorHandlers } from './http/errors.ts';
import { corsPreflight, limitBodySize, requestContext } from './http/middleware.ts';
import { registerSharedComponents } from './http/openapi.ts';
import { servedDocument } from './versions/openapi-document.ts';
import { refuseCredentialsInQuery } from './http/query.ts';
import { buildRouteTable, type RouteTable } from './http/routing.ts';
import { validationHook } from './http/validation.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { eventRoutes } from './events/routes.ts';
import { meRoutes } from './me/routes.ts';
import { revisionRoutes } from './revisions/routes.ts';
import { patchRoutes } from './scenarios/patch-routes.ts';
import { sharedRoutes } from './share-links/public-routes.ts';
import { shareLinkRoutes } from './share-links/routes.ts';
import { scenarioRoutes } from './scenarios/routes.ts';
import { versionLayer } from './versions/layer.ts';
import { versionRoutes } from './versions/routes.ts';
import { API_VERSION_HEADER, invalidVersion } from './versions/layer.ts';
import { knownApiVersion } from './api-versions.ts';
import { readConfig } from './env.ts';
import { ApiError } from './http/problem.ts';

// TrieRouter, not Hono's default SmartRouter: that one first tries RegExpRouter, which refuses
// these routes (a static segment beside a parameter: /scenarios/export and /scenarios/{token})
// by throwing, and the Error thrown at isolate start made workerd collect source positions for
// the whole bundle, about a quarter of the cold start (bench/README.md, "Cold start").
const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, router: new TrieRouter() });

app.use('*', requestContext);
// Right inside the request context, so that every reply (errors, 304, every route) passes it.
app.use('*', versionLayer);
app.use('*', corsPreflight);
app.use('*', refuseCredentialsInQuery);
app.use('*', limitBodySize);

const routes = app
  .route('/', meRoutes)
  .route('/scenarios', chartRoutes)
  .route('/scenarios', scenarioRoutes)
  .route('/scenarios', patchRoutes)
  .route('/scenarios', shareLinkRoutes)
  .route('/shared', sharedRoutes)
  .route('/scenarios', revisionRoutes)
  .route('/events', eventRoutes)
  .route('/webhook_endpoints', webhookRoutes)
  .route('/admin', adminRoutes)
  .route('/', versionRoutes);
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
  description: 'The admin token (ADMIN_TOKEN secret), for the admin API (/admin/…) only: operators manage accounts and keys with it; API keys are refused there, and it is refused everywhere else',
});
registerSharedComponents(app.openAPIRegistry);

let table: RouteTable | undefined;

/**
 * Every route the app serves, with its path parameters' schemas: for 404/405 and the contract
 * tests. Built on first use (the first request no route takes), not at isolate start.
 */
export function routeTable(): RouteTable {
  table ??= buildRouteTable(app.routes, app.openAPIRegistry.definitions);
  return table;
}

/**
 * The OpenAPI 3.1 document, as generated from the route definitions at build time
 * (`npm run openapi`); the `servers` entry is the caller's origin, added per request.
 */
export const openApiDocument = servedDocument;

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

/**
 * The document of the version `?api_version=` names (default DEFAULT_API_VERSION). It names the
 * version it describes in its own API-Version header, which the version layer keeps.
 */
app.get('/openapi.json', async (c) => {
  const asked = c.req.query('api_version');
  const version = asked === undefined ? readConfig(c.env).defaultApiVersion : knownApiVersion(asked);
  if (version === undefined) {
    const { errors } = invalidVersion(asked ?? '');
    throw new ApiError('invalid_query', 'api_version must be a version GET /api_versions lists', { errors: errors?.map((e) => ({ ...e, path: 'api_version' })) });
  }
  const document = { ...(await openApiDocument(version)), servers: [servedFrom(c.req.url)] };
  return c.json(document, 200, { 'Cache-Control': 'public, max-age=300', [API_VERSION_HEADER]: version });
});

const { onError, notFound } = errorHandlers(routeTable);
app.onError(onError);
app.notFound(notFound);

// One match while the isolate starts, so that the router's match path is compiled then, not on
// the first request.
app.router.match('GET', '/');

/** The app's type, for Hono's typed client (`hc<AppType>`). */
export type AppType = typeof routes;
export { app };

