// npm run db:migrate (local) and db:migrate:remote (`--remote`; also the first step of npm run
// deploy): applies drizzle/'s migrations to every D1 database wrangler.toml lists (DB, DB_2, …),
// one after another, stopping at the first that fails. Every database takes the same migrations:
// an account can be on any of them.
import { spawnSync } from 'node:child_process';
import { databaseBindings } from './lib/database.ts';

const where = process.argv.includes('--remote') ? '--remote' : '--local';
const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' };

for (const binding of databaseBindings()) {
  console.log(`Migrations for ${binding} (${where.slice(2)}):`);
  // stdin closed: wrangler then applies without asking for confirmation.
  const result = spawnSync(process.execPath, ['node_modules/wrangler/bin/wrangler.js', 'd1', 'migrations', 'apply', binding, where], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env,
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
