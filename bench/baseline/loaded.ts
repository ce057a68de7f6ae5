// The raw baseline's fetch handler in a bundle that also imports and initialises the whole
// service (its modules, zod schemas, route table, prepared queries), which never handles a
// request: isolate size without the service's per-request code. Used by bench/isolate-size.ts.
import { app } from '../../src/app.ts';
import baseline from './worker.ts';

export default {
  fetch(request, env, ctx) {
    // Never true in the benchmark; it keeps the service in the bundle and its modules initialised.
    if (request.headers.has('X-Never-Sent-By-The-Bench')) return app.fetch(request, env, ctx);
    return baseline.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Parameters<typeof baseline.fetch>[1]>;
