// The Worker runs src/http/zod-openapi-runtime.ts in place of @hono/zod-openapi; the tests named in
// vitest.config.ts (REAL_PACKAGE_TESTS) run again with the real package in its place. This checks
// that each run has the one it says, so the second run cannot quietly test the stand-in twice.
import { describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { OpenAPIHono } from '../src/http/zod-openapi-runtime.ts';
import { app } from '../src/app.ts';

describe('the @hono/zod-openapi the app is built with', () => {
  const real = inject('realZodOpenApi');

  it(real ? 'is the real package (this run holds the stand-in to it)' : "is the Worker's stand-in: validators, no document generator", () => {
    expect('getOpenAPI31Document' in new OpenAPIHono()).toBe(real);
    expect('getOpenAPI31Document' in app).toBe(real);
    // The stand-in's .openapi() hands back the schema itself; the real one records metadata on a copy.
    const schema = z.string();
    expect((schema as unknown as { openapi: (m: object) => unknown }).openapi({ example: 'x' }) === schema).toBe(!real);
  });
});

const sources = import.meta.glob<string>(['../src/**/*.ts', '../src/**/*.tsx'], { query: '?raw', import: 'default', eager: true });

describe('imports of zod and @hono/zod-openapi in src/', () => {
  it('take zod as a namespace (the bundler keeps only the members used) and the real @hono/zod-openapi for types only', () => {
    const offending: string[] = [];
    for (const [file, text] of Object.entries(sources)) {
      for (const [statement, specifier] of text.matchAll(/^import\b[^;]*?from\s+'([^']+)';/gms)) {
        if (specifier === 'zod' && !/^import (type )?\* as z from 'zod';$/.test(statement)) offending.push(`${file}: ${statement}`);
        if (specifier === '@hono/zod-openapi' && !statement.startsWith('import type ')) offending.push(`${file}: ${statement}`);
      }
    }
    expect(offending, "use `import * as z from 'zod'`; take createRoute and OpenAPIHono from src/http/zod-openapi-runtime.ts").toEqual([]);
  });
});

declare module 'vitest' {
  export interface ProvidedContext {
    realZodOpenApi: boolean;
  }
}
