// The app: one sub-app per resource, the OpenAPI document and /docs, on the middleware and error
// handlers every Worker of the service shares (src/service-app.ts). The admin API (/admin/…) is
// another Worker's (admin/), which src/index.ts hands those paths to: none of it is in this app.
// The document is generated at build time from these very routes and the admin API's
// (scripts/lib/openapi-document.ts, under Node with the real @hono/zod-openapi); the Worker runs
// src/http/zod-openapi-runtime.ts in its place, which validates requests as the real one does and
// records no OpenAPI metadata.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { chartRoutes } from './scenarios/chart/routes.ts';
import { docsRoutes } from './docs/routes.ts';
import type { AppEnv } from './env.ts';
import { registerSharedComponents } from './http/openapi.ts';
import { servedDocument } from './versions/openapi-document.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { eventRoutes } from './events/routes.ts';
import { meRoutes } from './me/routes.ts';
import { revisionRoutes } from './revisions/routes.ts';
import { patchRoutes } from './scenarios/patch-routes.ts';
import { sharedRoutes } from './share-links/public-routes.ts';
import { shareLinkRoutes } from './share-links/routes.ts';
import { scenarioRoutes } from './scenarios/routes.ts';
import { versionRoutes } from './versions/routes.ts';
import { API_VERSION_HEADER, invalidVersion } from './versions/layer.ts';
import { knownApiVersion } from './api-versions.ts';
import { readConfig } from './env.ts';
import { ApiError } from './http/problem.ts';
import { serveErrors, serviceApp } from './service-app.ts';

/**
 * Mounts the API's resources and /docs on `app` in the order the OpenAPI document lists them, and
 * registers the document's security schemes and shared components. `adminRoutes`
 * is for the document only (scripts/lib/openapi-document.ts): the admin API, served by its own
 * Worker, documented where it always was; the Worker's app is built without it.
 */
export function mountResources(app: OpenAPIHono<AppEnv>, adminRoutes?: OpenAPIHono<AppEnv>) {
  const resources = app
    .route('/', meRoutes)
    .route('/scenarios', chartRoutes)
    .route('/scenarios', scenarioRoutes)
    .route('/scenarios', patchRoutes)
    .route('/scenarios', shareLinkRoutes)
    .route('/shared', sharedRoutes)
    .route('/scenarios', revisionRoutes)
    .route('/events', eventRoutes)
    .route('/webhook_endpoints', webhookRoutes);
  if (adminRoutes) resources.route('/admin', adminRoutes);
  const routes = resources.route('/', versionRoutes);
  app.route('/', docsRoutes);
  describeSecurity(app.openAPIRegistry);
  return routes;
}

/** The security schemes and the shared components of the document. */
function describeSecurity(registry: OpenAPIHono<AppEnv>['openAPIRegistry']): void {
  registry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'scn_ + 36 base62 characters',
    description: 'An API key from the account dashboard (Developers section): `Authorization: Bearer scn_…`',
  });
  registry.registerComponent('securitySchemes', 'AdminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The admin token (ADMIN_TOKEN secret), for the admin API (/admin/…) only: operators manage accounts and keys with it; API keys are refused there, and it is refused everywhere else',
  });
  registerSharedComponents(registry);
}

const app = serviceApp();
const routes = mountResources(app);

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

/**
 * Every route the app serves, with its path parameters' schemas: for 404/405 and the contract
 * tests. The admin API's are the admin Worker's (admin/src/app.ts `adminRouteTable`).
 */
export const routeTable = serveErrors(app);

/** The app's type, for Hono's typed client (`hc<AppType>`). */
export type AppType = typeof routes;
export { app };

