import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { startReceiver } from './scripts/lib/webhook-receiver.ts';
import { workerAliases } from './scripts/lib/worker-aliases.ts';
import { SUMMARY_PREFIX } from './test/helpers/summary.ts';

// workerd's console lines that tests provoke on purpose, each with why it is expected. They are
// dropped from the report (a count is printed at the end); anything else workerd says is shown.
const EXPECTED_RUNTIME_NOISE: { pattern: RegExp; why: string }[] = [
  {
    pattern: /^A header value for "Authorization" contains non-ASCII characters/,
    why: 'non-ASCII Authorization headers the fuzz tests send on purpose',
  },
  {
    pattern: /^exception = kj\/async-io\.c\+\+:\d+: disconnected: read end of pipe was aborted/,
    why: 'request bodies the Worker refused (413) before reading them',
  },
  {
    pattern: /^(exception = rust\/worker\/ffi\.rs:\d+: disconnected: Connection refused|uncaught exception; (source = Uncaught \(in promise\); stack = Error|exception = workerd\/jsg\/value\.h:\d+: disconnected: jsg\.Error): Network connection lost)/,
    why: 'the webhook delivery test to a loopback port nothing listens on (the consumer records "connection failed")',
  },
  {
    pattern: /^(uncaught exception; (source = Uncaught \(in promise\); stack = TypeError|exception = workerd\/jsg\/value\.h:\d+: failed: jsg\.TypeError): the client hung up mid-body \(test\)|exception = kj\/async-io\.c\+\+:\d+: disconnected: fixed-length pipe ended prematurely)/,
    why: 'request bodies the hang-up tests cut off on purpose (the runtime reports the broken stream)',
  },
  {
    pattern: /^uncaught exception; .*ExportStoppedError: export stopped/,
    why: 'exports the tests stop mid-stream on purpose (a key revoked between pages)',
  },
  {
    pattern: /^detected excessive collisions in hash table; is your hash function OK\?/,
    why: "a warning workerd's own kj library prints about one of its internal hash tables (its stack is workerd's alone), once in test/scenarios.export.test.ts's full run, not in any of its tests alone",
  },
  {
    pattern: /^\[mf:warn\] Moving message "[0-9a-f]+" on queue "scenario-service-webhooks" to dead letter queue/,
    why: 'webhook deliveries the dead-letter test lets fail until the dead-letter queue',
  },
];

/** Drops EXPECTED_RUNTIME_NOISE from the pool's output (workerd's logs: warnings to stderr, the
 * rest to stdout) and counts it. */
function quietExpectedRuntimeNoise(): void {
  const dropped = new Map<string, number>();
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : String(chunk);
      const noise = EXPECTED_RUNTIME_NOISE.find(({ pattern }) => pattern.test(text));
      if (!noise) return write(chunk, ...rest);
      dropped.set(noise.why, (dropped.get(noise.why) ?? 0) + 1);
      return true;
    }) as typeof stream.write;
  }
  process.once('exit', () => {
    if (dropped.size === 0) return;
    const counts = [...dropped].map(([why, n]) => `${n} × ${why}`).join('; ');
    process.stdout.write(`(expected workerd warnings, not shown: ${counts})\n`);
  });
}

/** The tests run a second time with the real @hono/zod-openapi in place of the Worker's stand-in. */
const REAL_PACKAGE_TESTS = ['test/scenarios.validation.test.ts', 'test/errors.test.ts', 'test/scenarios.forms.test.ts', 'test/security.test.ts'];

// Tests run inside workerd against a real local D1. The migrations drizzle-kit wrote are read
// once here and applied by test/setup/apply-migrations.ts, exactly as wrangler applies them.
export default defineConfig(async () => {
  // Wrangler reads wrangler.toml for the bindings, then announces the developer's .dev.vars or
  // warns that it lacks the required secrets, once per test file; the tests set their own secrets
  // below, so only wrangler's errors are shown here (`npm start` and CI's `wrangler types --check`
  // show its warnings about wrangler.toml).
  process.env.WRANGLER_LOG ??= 'error';
  quietExpectedRuntimeNoise();
  const migrations = await readD1Migrations(path.join(import.meta.dirname, 'drizzle'));
  // The webhook tests' receiver: real HTTP on loopback, for the queue consumer to deliver to.
  const receiver = await startReceiver();
  // The OpenAPI document as the route definitions make it now: generated under Node with the real
  // @hono/zod-openapi (the Worker runs its stand-in, src/http/zod-openapi-runtime.ts), for
  // test/openapi-drift.test.ts to hold the committed and the served document against.
  const generated = spawnSync(process.execPath, ['scripts/openapi-export.ts', '--print'], { cwd: import.meta.dirname, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (generated.status !== 0) throw new Error(`scripts/openapi-export.ts --print failed:\n${generated.stderr}`);
  // Every statement of src/db/ as drizzle renders it (under Node), for test/db.drizzle-lite.test.ts.
  const statements = spawnSync(process.execPath, ['scripts/sql-export.ts', '--print'], { cwd: import.meta.dirname, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (statements.status !== 0) throw new Error(`scripts/sql-export.ts --print failed:\n${statements.stderr}`);
  return {
    // As in the Worker bundle (wrangler.toml [alias], the one table): drizzle's rendering as
    // src/db/drizzle-lite/.
    resolve: { alias: workerAliases(import.meta.dirname) },
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        main: './test/worker-entry.ts',
        miniflare: {
          cf: false,
          bindings: {
            TEST_MIGRATIONS: migrations,
            // At least 32 characters: a shorter admin token switches the admin API off.
            ADMIN_TOKEN: 'test-admin-token-0123456789abcdefghijklmnop',
            CHART_SIGNING_KEY: 'test-chart-signing-key',
            // One key, id "test1" (32 bytes, base64); tests of key rotation add their own.
            WEBHOOK_SECRET_KEYS: 'test1:dGVzdC13ZWJob29rLXNlY3JldC1rZXktMzItYnl0ZXM=',
            // Retention on, so expiry can be tested by backdating rows (fresh ones stay live).
            SCENARIO_RETENTION_DAYS: '30',
            // Deliveries go to the loopback receiver above, and retries follow at once (the
            // backoff's arithmetic is tested on its own).
            WEBHOOK_ALLOW_LOOPBACK: 'true',
            WEBHOOK_RETRY_BASE_SECONDS: '0',
            WEBHOOK_RECEIVER_URL: receiver.url,
            // Links handed out (sign-in, share links) are built from it, never from the Host header.
            PUBLIC_ORIGIN: 'https://scenarios.test',
            OPENAPI_FROM_ROUTES: generated.stdout,
            // TEST_API_VERSION=2026-11-21 npm test: every request of test/helpers/api.ts that names
            // no API-Version sends this one (the suite's shapes, with the header as without it).
            TEST_API_VERSION: process.env.TEST_API_VERSION ?? '',
            SQL_FROM_DRIZZLE: statements.stdout,
            // The dashboard Worker's vars (dashboard/wrangler.toml), for the tests that call it.
            DASHBOARD_SIGNUP: 'invite',
            EMAIL_FROM: 'dashboard@scenario-service.test',
          },
          // The dashboard's and the admin API's Workers run in this same test Worker: the API's
          // DASHBOARD and ADMIN service bindings point back here, at test/worker-entry.ts's
          // Dashboard and Admin entrypoints (the plugin turns a binding to wrangler.toml's own name
          // into one to itself).
          serviceBindings: {
            DASHBOARD: { name: 'scenario-service', entrypoint: 'Dashboard' },
            ADMIN: { name: 'scenario-service', entrypoint: 'Admin' },
          },
          // A database no migration setup touches: test/revisions.migration.test.ts builds one as
          // the code before compact history left it, then migrates it.
          d1Databases: { HISTORY_MIGRATION_DB: 'history-migration-test' },
          email: { send_email: [{ name: 'EMAIL' }] },
          ratelimits: {
            SIGNIN_ADDRESS_LIMITER: { namespace_id: '1101', simple: { limit: 10, period: 60 } },
            SIGNIN_EMAIL_LIMITER: { namespace_id: '1102', simple: { limit: 3, period: 60 } },
          },
        },
      }),
    ],
    test: {
      // Two runs: every test against the Worker as deployed, and the validation and error tests
      // again with the real @hono/zod-openapi where the Worker runs its stand-in
      // (src/http/zod-openapi-runtime.ts), which holds the stand-in to the package.
      projects: [
        { extends: true, test: { name: 'worker', include: ['test/**/*.test.ts'], provide: { realZodOpenApi: false } } },
        {
          extends: true,
          resolve: { alias: [{ find: /^\.{1,2}\/(?:[\w.-]+\/)*zod-openapi-runtime\.ts$/, replacement: '@hono/zod-openapi' }] },
          test: { name: 'real-packages', include: [...REAL_PACKAGE_TESTS, 'test/zod-openapi-runtime.test.ts'], provide: { realZodOpenApi: true } },
        },
      ],
      setupFiles: ['./test/setup/apply-migrations.ts'],
      // The Worker logs every refused request (one JSON line each); thousands of them, from the
      // error and fuzz tests, would bury the report.
      // The dead-letter queue's consumer logs each message it takes; the delivery tests cause some on purpose.
      // An export the tests stop mid-stream (a key revoked between pages) logs why it stopped.
      // The fuzz and fault tests' tallies (test/helpers/summary.ts) only with TEST_SUMMARIES=1.
      onConsoleLog: (log: string) =>
        !log.includes('"msg":"request failed"') &&
        !log.includes('"msg":"webhook message dead-lettered"') &&
        !log.includes('"msg":"export stopped"') &&
        (process.env.TEST_SUMMARIES === '1' || !log.startsWith(SUMMARY_PREFIX)),
    },
  };
});
