// wrangler.toml's [alias] table, the one list of what the Worker runs in place of a package
// (drizzle's statement rendering as src/db/drizzle-lite/), as absolute paths: vitest.config.ts and
// the benches' bundles read it here, so each runs exactly what `wrangler deploy` bundles.
// dashboard/wrangler.toml and admin/wrangler.toml repeat the table (a config file cannot include another);
// test/config.test.ts holds the three equal.
import path from 'node:path';
import { experimental_readRawConfig } from 'wrangler';

export function workerAliases(root: string): Record<string, string> {
  const { rawConfig } = experimental_readRawConfig({ config: path.join(root, 'wrangler.toml') });
  return Object.fromEntries(Object.entries(rawConfig.alias ?? {}).map(([name, target]) => [name, path.join(root, String(target))]));
}
