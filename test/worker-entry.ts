// The Worker the tests call (exports.default): src/index.ts's Worker as deployed.
//
// `Dashboard` stands in for the dashboard Worker (dashboard/wrangler.toml) behind the API's
// DASHBOARD service binding (vitest.config.ts), with this Worker's env: the same D1 and queue.
import { WorkerEntrypoint } from 'cloudflare:workers';
import dashboard from '../dashboard/src/index.ts';
import type { DashboardBindings } from '../dashboard/src/env.ts';

export { default } from '../src/index.ts';

export class Dashboard extends WorkerEntrypoint<Env & DashboardBindings> {
  override fetch(request: Request): Promise<Response> {
    return Promise.resolve(dashboard.fetch(request as Request<unknown, IncomingRequestCfProperties>, this.env, this.ctx));
  }
}
