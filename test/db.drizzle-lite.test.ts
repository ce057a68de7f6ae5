/// <reference types="vite/client" />
// The Worker renders its statements with src/db/drizzle-lite/ (wrangler.toml [alias]), not drizzle.
// Every statement src/db/ defines must come out exactly as drizzle renders it: SQL text and
// parameters (placeholder names, values written into the SQL), as scripts/sql-export.ts printed
// them under Node with the real drizzle when the tests started (vitest.config.ts).
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { renderDefinedStatements } from '../src/db/statement.ts';

// Every module of src/db/ and dashboard/src/db/, so that every statement is defined (at module
// level) before rendering.
import.meta.glob(['../src/db/*.ts', '../dashboard/src/db/*.ts'], { eager: true });

describe('drizzle-lite', () => {
  it('renders every statement of src/db/ and dashboard/src/db/ as drizzle does', () => {
    const lite = renderDefinedStatements().map((s) => JSON.stringify(s)).sort();
    const drizzle = JSON.parse(env.SQL_FROM_DRIZZLE) as string[];
    expect(lite.length).toBeGreaterThan(50);
    expect(lite, 'src/db/drizzle-lite/ renders a statement differently from drizzle: extend it to the part of drizzle the statement uses').toEqual(drizzle);
  });
});
