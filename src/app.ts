// The app: middleware, one sub-app per resource, the OpenAPI document and /docs, error handlers.
import { OpenAPIHono } from '@hono/zod-openapi';
import { cors } from 'hono/cors';
import { adminRoutes } from './admin/routes.ts';
import { chartRoutes } from './chart/routes.ts';
import { docsRoutes } from './docs/routes.ts';
import type { AppEnv } from './env.ts';
import { handleError, handleNotFound } from './http/errors.ts';
import { limitBodySize, requestContext } from './http/middleware.ts';
import { registerRoutes } from './http/routing.ts';
import { validationHook } from './http/validation.ts';
import { meRoutes } from './me/routes.ts';
import { scenarioRoutes } from './scenarios/routes.ts';

const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

app.use('*', requestContext);
app.use(
  '*',
  cors({
    origin: '*',
    allowHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key'],
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    exposeHeaders: ['ETag', 'Location', 'Retry-After', 'X-Request-Id', 'Idempotent-Replayed'],
    maxAge: 86400,
  }),
);
app.use('*', limitBodySize);

const routes = app
  .route('/', meRoutes)
  .route('/scenarios', chartRoutes)
  .route('/scenarios', scenarioRoutes)
  .route('/admin', adminRoutes);
app.route('/', docsRoutes);

app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', {
  type: 'http',
  scheme: 'bearer',
  description: 'An API key from the account dashboard (Developers section)',
});
app.openAPIRegistry.registerComponent('securitySchemes', 'AdminToken', {
  type: 'http',
  scheme: 'bearer',
  description: 'The admin token (ADMIN_TOKEN secret), for the account dashboard only',
});

let document: ReturnType<typeof app.getOpenAPI31Document> | undefined;

/**
 * The OpenAPI 3.1 document, generated from the route definitions once per isolate (the
 * `servers` entry is the caller's origin, added per request).
 */
export function openApiDocument(): ReturnType<typeof app.getOpenAPI31Document> {
  document ??= app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Scenario Service',
      version: '1.0.0',
      description: 'Household scenarios for public-benefit analysis. Errors are RFC 9457 problem details.',
    },
    security: [{ ApiKey: [] }],
  });
  return document;
}

app.get('/openapi.json', (c) =>
  c.json({ ...openApiDocument(), servers: [{ url: new URL(c.req.url).origin }] }, 200, { 'Cache-Control': 'public, max-age=300' }),
);

app.onError(handleError);
app.notFound(handleNotFound);
registerRoutes(app.routes);

/** The app's type, for Hono's typed client (`hc<AppType>`). */
export type AppType = typeof routes;
export { app };

