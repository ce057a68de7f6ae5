// The migrations in drizzle/, applied in order to a D1 reached through Miniflare's binding proxy
// (what `wrangler d1 migrations apply --local` does, without a wrangler process per database).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The statements of one migration file (drizzle-kit separates them with a breakpoint comment). */
function statements(sql: string): string[] {
  return sql
    .split('--> statement-breakpoint')
    .map((s) => s.trim())
    .filter((s) => s.replace(/--.*$/gm, '').trim() !== '');
}

export async function applyMigrations(db: { prepare(sql: string): { run(): Promise<unknown> } }, dir = 'drizzle'): Promise<void> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  for (const file of files) {
    for (const sql of statements(readFileSync(join(dir, file), 'utf8'))) await db.prepare(sql).run();
  }
}
