// The latency bench's Worker: the service's own default export, called with its D1 bindings
// replaced by ones that pay BENCH_D1_DELAY_MS per round trip (delayed-d1.ts). Everything else —
// the request, the other bindings, the execution context — reaches the service as it would.
// bench/latency.ts bundles this file next to the service's deployed bundle, which it imports
// unchanged (`../../src/index.ts` is rewritten to `./index.js`).
//
// Each reply gets the round trips the request made before it (round-trips.ts):
//   X-Bench-D1-Awaited  sequential round trips the reply waited for
//   X-Bench-D1-Ended    round trips that ended before the reply (overlapping ones each counted)
//   X-Bench-D1-Pending  round trips still under way when the reply left (waitUntil work)
// Round trips after the reply cannot be in its headers: once the request's waitUntil work has
// settled, they are added to a tally that `GET /__bench/d1` returns.
import service from '../../src/index.ts';
import { delayedD1 } from './delayed-d1.ts';
import { roundTripLog } from './round-trips.ts';

type BenchEnv = Env & { BENCH_D1_DELAY_MS?: string };

/** Since the isolate started: requests whose waitUntil work has settled, and their round trips after the reply. */
const afterReply = { requests: 0, roundTrips: 0 };

const handler: Pick<ExportedHandler<Env>, 'fetch'> = service;

/** `ctx` whose waitUntil also hands each promise to `track`. */
function trackedContext(ctx: ExecutionContext, track: (p: Promise<unknown>) => void): ExecutionContext {
  return new Proxy(ctx, {
    get(t, prop) {
      if (prop === 'waitUntil') return (p: Promise<unknown>) => (track(p), t.waitUntil(p));
      const value: unknown = Reflect.get(t, prop, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });
}

export default {
  async fetch(request, env: BenchEnv, ctx) {
    if (new URL(request.url).pathname === '/__bench/d1') return Response.json(afterReply);
    if (!handler.fetch) throw new Error('the service has no fetch handler');
    const delay = Number(env.BENCH_D1_DELAY_MS ?? 0);
    const log = roundTripLog();
    const waits: Promise<unknown>[] = [];
    // Every database the service may use (DB, DB_2, …), each behind the same delay and log.
    const databases = Object.fromEntries(
      Object.entries(env)
        .filter(([name]) => /^DB(_[0-9]+)?$/.test(name))
        .map(([name, db]) => [name, delayedD1(db as D1Database, delay, log.observe)]),
    );
    const reply = await handler.fetch(
      request,
      { ...env, ...databases },
      trackedContext(ctx, (p) => waits.push(p)),
    );
    const at = log.atReply();
    ctx.waitUntil(
      (async () => {
        // waitUntil work may register more of it.
        for (let seen = -1; seen !== waits.length; ) {
          seen = waits.length;
          await Promise.allSettled(waits);
        }
        afterReply.requests++;
        afterReply.roundTrips += log.total() - at.ended;
      })(),
    );
    const out = new Response(reply.body, reply);
    out.headers.set('X-Bench-D1-Awaited', String(at.awaited));
    out.headers.set('X-Bench-D1-Ended', String(at.ended));
    out.headers.set('X-Bench-D1-Pending', String(at.pending));
    return out;
  },
} satisfies ExportedHandler<BenchEnv>;
