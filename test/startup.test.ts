// What an isolate does while it starts (src/index.ts builds the app in the global scope): the
// schemas only the OpenAPI document reads (`documented` in src/http/openapi.ts) stay unbuilt. One
// touched at module level, outside another `documented` factory (`z.array(SomeReplySchema)` in a
// route's responses, say), is built at every isolate start, and lands here.
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { adminApp } from '../admin/src/app.ts';
import { app } from '../src/app.ts';
import { documentedBuiltCount } from '../src/http/openapi.ts';

describe('isolate start', () => {
  it('builds the app without building any schema only the OpenAPI document reads', () => {
    expect(app.routes.length).toBeGreaterThan(20);
    expect(documentedBuiltCount()).toBe(0);
  });

  it("builds the admin API's app (admin/src/app.ts) the same way", () => {
    expect(adminApp.routes.length).toBeGreaterThan(7);
    expect(documentedBuiltCount()).toBe(0);
  });
});

describe("the Worker's zod (src/http/zod-config.ts)", () => {
  it('runs without cycle support and never generates code', () => {
    const settings = z.config();
    expect(settings.jitless).toBe(true);
    // zod's own memoizer walks each container's whole subtree on its first parse; ours does nothing.
    expect(settings.memoizer).toBeDefined();
    expect(settings.memoizer).not.toBe(z.memoizer());
  });

  it('still parses a shared object twice in one input, as JSON never sends but a caller might', () => {
    const Pair = z.object({ a: z.object({ n: z.number() }), b: z.object({ n: z.number() }) });
    const shared = { n: 1 };
    expect(Pair.parse({ a: shared, b: shared })).toEqual({ a: { n: 1 }, b: { n: 1 } });
    expect(Pair.safeParse({ a: shared, b: { n: 'x' } }).success).toBe(false);
  });
});

describe('isolate start, constructing no Error', () => {
  // An Error made while the isolate starts costs more than it looks: workerd captures its stack,
  // and the frame of the bundle's top level makes V8 re-parse the whole bundle for source
  // positions (about a quarter of the cold start, when Hono's default router threw on these
  // routes; bench/README.md, "Cold start"). So the app is built again here, from fresh modules,
  // counting every Error constructed meanwhile.
  /** The Errors constructed while `work` runs, by class and message. */
  async function errorsMadeBy(work: () => Promise<void>): Promise<string[]> {
    const real = globalThis.Error;
    const made: string[] = [];
    globalThis.Error = new Proxy(real, {
      construct(target, args, newTarget) {
        made.push(`${(newTarget as { name?: string }).name}: ${String(args[0])}`);
        return Reflect.construct(target, args, newTarget) as object;
      },
    });
    try {
      vi.resetModules();
      await work();
    } finally {
      globalThis.Error = real;
    }
    return made;
  }

  it('builds the whole app without constructing one', async () => {
    const made = await errorsMadeBy(async () => {
      const fresh = await import('../src/app.ts');
      expect(fresh.app).not.toBe(app);
      expect(fresh.app.routes.length).toBe(app.routes.length);
    });
    expect(made).toEqual([]);
  });

  it("builds the admin API's app without constructing one", async () => {
    const made = await errorsMadeBy(async () => {
      const fresh = await import('../admin/src/app.ts');
      expect(fresh.adminApp).not.toBe(adminApp);
      expect(fresh.adminApp.router.match('POST', '/admin/accounts/7/move')[0].length).toBeGreaterThan(0);
    });
    expect(made).toEqual([]);
  });

  it("routes the dashboard's first request without constructing one", async () => {
    const made = await errorsMadeBy(async () => {
      const { dashboardApp } = await import('../dashboard/src/app.ts');
      // A router builds its matcher on its first match; Hono's default one threw then.
      expect(dashboardApp.router.match('POST', '/dashboard/webhooks/1/disable')[0].length).toBeGreaterThan(0);
    });
    expect(made).toEqual([]);
  });
});
