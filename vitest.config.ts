import path from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

// Tests run inside workerd against a real local D1. The migrations drizzle-kit wrote are read
// once here and applied by test/setup/apply-migrations.ts, exactly as wrangler applies them.
export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, 'drizzle'));
  return {
    // As in the Worker bundle (wrangler.toml [alias]): the tests run the same zod.
    resolve: { alias: { zod: path.join(import.meta.dirname, 'src/zod/index.ts') } },
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        main: './test/worker-entry.ts',
        miniflare: {
          cf: false,
          bindings: {
            TEST_MIGRATIONS: migrations,
            ADMIN_TOKEN: 'test-admin-token-0123456789',
            CHART_SIGNING_KEY: 'test-chart-signing-key',
            // Retention on, so expiry can be tested by backdating rows (fresh ones stay live).
            SCENARIO_RETENTION_DAYS: '30',
          },
        },
      }),
    ],
    test: {
      include: ['test/**/*.test.ts'],
      setupFiles: ['./test/setup/apply-migrations.ts'],
      // The Worker logs every refused request (one JSON line each); thousands of them, from the
      // error and fuzz tests, would bury the report.
      onConsoleLog: (log: string) => !log.includes('"msg":"request failed"'),
    },
  };
});
