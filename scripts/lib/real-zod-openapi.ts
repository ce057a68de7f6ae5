// Under Node, where the OpenAPI document is generated, `src/http/zod-openapi-runtime.ts` (what the
// Worker runs in place of @hono/zod-openapi: validators, no document) resolves to the real package,
// which records the routes' and schemas' OpenAPI metadata and generates the document from them.
// Registered before the app is imported (scripts/lib/openapi-document.ts imports it dynamically):
// every module is resolved before any runs, so a hook registered later would come too late.
import { registerHooks } from 'node:module';

export const RUNTIME_STAND_IN = /\/src\/http\/zod-openapi-runtime\.ts$/;

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    return RUNTIME_STAND_IN.test(resolved.url) ? nextResolve('@hono/zod-openapi', context) : resolved;
  },
});
