// The service's D1 database from Node, through wrangler's platform proxy: the local one that
// `wrangler dev` uses (.wrangler/state), or with `remote` the deployed one (needs `wrangler login`).
// Scripts then use the same query functions as the Worker.
import { mkdirSync, writeFileSync } from 'node:fs';
import { experimental_readRawConfig, getPlatformProxy } from 'wrangler';
import type { Session } from '../../src/db/statement.ts';

export interface OpenDatabase {
  db: Session;
  dispose: () => Promise<void>;
}

/** A config naming only the D1 binding, marked remote, so nothing else is proxied. */
function remoteConfigPath(): string {
  const { rawConfig } = experimental_readRawConfig({ config: 'wrangler.toml' });
  const binding = rawConfig.d1_databases?.find((d: { binding: string }) => d.binding === 'DB');
  if (!binding) throw new Error('wrangler.toml has no D1 binding named DB');
  mkdirSync('.wrangler', { recursive: true });
  const path = '.wrangler/remote-db.json';
  writeFileSync(
    path,
    JSON.stringify({
      name: rawConfig.name,
      compatibility_date: rawConfig.compatibility_date,
      d1_databases: [{ ...binding, remote: true }],
    }),
  );
  return path;
}

export async function openDatabase(options: { remote: boolean }): Promise<OpenDatabase> {
  const proxy = await getPlatformProxy<{ DB: D1Database }>({
    configPath: options.remote ? remoteConfigPath() : 'wrangler.toml',
    remoteBindings: options.remote,
    persist: true,
    envFiles: [],
  });
  return { db: proxy.env.DB, dispose: proxy.dispose };
}
