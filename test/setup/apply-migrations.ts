import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { readDatabases } from '../../src/env.ts';

// Every database wrangler.toml lists (accounts are spread over them), as `npm run db:migrate` does.
// Idempotent: applyD1Migrations records what it applied and skips it next time.
for (const db of readDatabases(env)) await applyD1Migrations(db, env.TEST_MIGRATIONS);
