// The Worker the tests call (exports.default): src/index.ts's Worker as deployed.
//
// `Dashboard` and `Admin` stand in for the dashboard Worker (dashboard/wrangler.toml) and the admin
// API's Worker (admin/wrangler.toml) behind the API's DASHBOARD and ADMIN service bindings
// (vitest.config.ts), with this Worker's env: the same D1, queue, limiter and secrets.
import { env as ownEnv, WorkerEntrypoint } from 'cloudflare:workers';
import admin from '../admin/src/index.ts';
import type { AdminBindings } from '../admin/src/env.ts';
import dashboard from '../dashboard/src/index.ts';
import type { DashboardBindings } from '../dashboard/src/env.ts';
import worker from '../src/index.ts';
import type { WebhookMessage } from '../src/webhooks/queue.ts';

/** Whether `env` is this Worker's own bindings (what exports.default gets), not a test's own set. */
function isOwnEnv(env: object): boolean {
  const own = ownEnv as unknown as Record<string, unknown>;
  const given = env as Record<string, unknown>;
  const names = Object.keys(given);
  return names.length === Object.keys(own).length && names.every((name) => given[name] === own[name]);
}

export default {
  ...worker,
  // A test that runs the Worker on bindings of its own (a wrapped D1, other secrets or vars: see
  // helpers/worker-on.ts) reaches the admin API on those same bindings, as the deployed admin
  // Worker has the API's databases and secrets: there ADMIN runs it in this isolate. On the
  // Worker's own bindings, ADMIN is the service binding, to `Admin` below.
  fetch(request, env, ctx) {
    if (isOwnEnv(env)) return worker.fetch(request, env, ctx);
    const local = { fetch: (input: RequestInfo | URL, init?: RequestInit) => admin.fetch(new Request(input, init) as Request<unknown, IncomingRequestCfProperties>, env, ctx) };
    return worker.fetch(request, { ...env, ADMIN: local as Fetcher }, ctx);
  },
} satisfies ExportedHandler<Env, WebhookMessage>;

export class Dashboard extends WorkerEntrypoint<Env & DashboardBindings> {
  override fetch(request: Request): Promise<Response> {
    return Promise.resolve(dashboard.fetch(request as Request<unknown, IncomingRequestCfProperties>, this.env, this.ctx));
  }
}

export class Admin extends WorkerEntrypoint<Env & AdminBindings> {
  override fetch(request: Request): Promise<Response> {
    return Promise.resolve(admin.fetch(request as Request<unknown, IncomingRequestCfProperties>, this.env, this.ctx));
  }
}
