// What each Worker that answers the API's HTTP builds its app on: the API Worker (src/app.ts) and
// the admin API's Worker (admin/src/app.ts). Every request passes the same middleware in the same
// order, and every refusal (404/405 included) is rendered by the same handlers, whichever Worker
// answers it; each app's 404/405 table is its own routes'.
import './http/zod-config.ts'; // before any schema is built
import type { OpenAPIHono as App } from '@hono/zod-openapi';
import { TrieRouter } from 'hono/router/trie-router';
import type { AppEnv } from './env.ts';
import { errorHandlers } from './http/errors.ts';
import { corsPreflight, limitBodySize, requestContext } from './http/middleware.ts';
import { refuseCredentialsInQuery } from './http/query.ts';
import { buildRouteTable, type RouteTable } from './http/routing.ts';
import { validationHook } from './http/validation.ts';
import { OpenAPIHono } from './http/zod-openapi-runtime.ts';
import { versionLayer } from './versions/layer.ts';

/**
 * A new app with the middleware every request passes. TrieRouter, not Hono's default SmartRouter:
 * that one first tries RegExpRouter, which refuses the API's routes (a static segment beside a
 * parameter: /scenarios/export and /scenarios/{token}) by throwing, and the Error thrown at isolate
 * start made workerd collect source positions for the whole bundle, about a quarter of the cold
 * start (bench/README.md, "Cold start").
 */
export function serviceApp(): App<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, router: new TrieRouter() });
  app.use('*', requestContext);
  // Right inside the request context, so that every reply (errors, 304, every route) passes it.
  app.use('*', versionLayer);
  app.use('*', corsPreflight);
  app.use('*', refuseCredentialsInQuery);
  app.use('*', limitBodySize);
  return app;
}

/**
 * The app's error and not-found handlers, once its routes are all in; returns its route table
 * (for 404/405 and the contract tests), built on first use (the first request no route takes),
 * not at isolate start.
 */
export function serveErrors(app: App<AppEnv>): () => RouteTable {
  let table: RouteTable | undefined;
  const routeTable = () => (table ??= buildRouteTable(app.routes, app.openAPIRegistry.definitions));
  const { onError, notFound } = errorHandlers(routeTable);
  app.onError(onError);
  app.notFound(notFound);
  // One match while the isolate starts, so that the router's match path is compiled then, not on
  // the first request.
  app.router.match('GET', '/');
  return routeTable;
}
