// Types the tests see: the migrations binding from vitest.config.ts and the Worker's own exports
// (so `exports.default.fetch` from 'cloudflare:workers' is typed).
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import('cloudflare:test').D1Migration[];
    /** The loopback webhook receiver (test/receiver/server.ts). */
    WEBHOOK_RECEIVER_URL: string;
    /** The OpenAPI document generated from the route definitions now, under Node (vitest.config.ts). */
    OPENAPI_FROM_ROUTES: string;
    /** An API-Version every request of helpers/api.ts sends unless it names one (empty: none). */
    TEST_API_VERSION: string;
    /** Every statement of src/db/ as drizzle renders it under Node (vitest.config.ts), as sorted JSON. */
    SQL_FROM_DRIZZLE: string;
    /** The dashboard Worker's own bindings (vitest.config.ts). */
    EMAIL: SendEmail;
    SIGNIN_ADDRESS_LIMITER: RateLimit;
    SIGNIN_EMAIL_LIMITER: RateLimit;
    DASHBOARD_SIGNUP: string;
    EMAIL_FROM: string;
    /** A database no setup migrates (vitest.config.ts): test/revisions.migration.test.ts builds it. */
    HISTORY_MIGRATION_DB: D1Database;
  }
  interface GlobalProps {
    mainModule: typeof import('../src/index.ts');
  }
}

/** A file's text, as Vite imports it with `?raw` (test/security.test.ts reads wrangler.toml so). */
declare module '*?raw' {
  const text: string;
  export default text;
}
