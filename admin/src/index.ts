// The admin API's Worker (admin/wrangler.toml): operators' accounts, keys and account moves under
// /admin, reached through the API Worker's ADMIN service binding (src/index.ts). A Worker of its
// own so that none of its routes, schemas or the mover is compiled when an API isolate starts
// (docs/decisions.md, "The admin API in a Worker of its own").
import { adminApp } from './app.ts';
import type { AdminBindings } from './env.ts';

export default {
  fetch: (request, env, ctx) => adminApp.fetch(request, env, ctx),
} satisfies ExportedHandler<AdminBindings>;
