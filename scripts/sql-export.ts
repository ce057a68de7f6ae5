// Every statement of src/db/ and dashboard/src/db/ as drizzle-orm renders it, under Node (the real drizzle: the aliases
// that give the Worker src/db/drizzle-lite/ are the bundlers'). `--print` writes them as JSON, in a
// stable order, for test/db.drizzle-lite.test.ts (vitest.config.ts hands them over), which holds the
// Worker's rendering of the same statements against them.
import { readdirSync } from 'node:fs';
import { renderDefinedStatements } from '../src/db/statement.ts';

export async function renderedByDrizzle(): Promise<string> {
  for (const dir of ['src/db', 'dashboard/src/db']) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts')).sort()) await import(`../${dir}/${file}`);
  }
  return JSON.stringify(renderDefinedStatements().map((s) => JSON.stringify(s)).sort());
}

if (import.meta.main) {
  const json = await renderedByDrizzle();
  if (process.argv.includes('--print')) process.stdout.write(json);
  else console.log(`${(JSON.parse(json) as string[]).length} statements`);
}
