// The service's D1 databases from Node, through wrangler's platform proxy: the local ones that
// `wrangler dev` uses (.wrangler/state), or with `remote` the deployed ones (needs `wrangler login`).
// Scripts then use the same query functions as the Worker. Accounts are spread over the databases
// wrangler.toml lists (DB, DB_2, …; docs/decisions.md, "Capacity past one database"):
// `databases` holds them in that order.
import { mkdirSync, writeFileSync } from 'node:fs';
import { experimental_readRawConfig, getPlatformProxy } from 'wrangler';
import type { Session } from '../../src/db/statement.ts';
import { readDatabases } from '../../src/env.ts';

export interface OpenDatabase {
  /** The first database (DB), which also holds the account directory. */
  db: Session;
  /** Every database, in wrangler.toml's order (index = the database an id or a key names). */
  databases: Session[];
  dispose: () => Promise<void>;
}

/** The D1 bindings wrangler.toml lists, in its order (DB first). */
export function databaseBindings(): string[] {
  const { rawConfig } = experimental_readRawConfig({ config: 'wrangler.toml' });
  const bindings = (rawConfig.d1_databases ?? []).map((d: { binding: string }) => d.binding);
  if (bindings[0] !== 'DB') throw new Error('wrangler.toml must list the D1 binding DB first');
  return bindings;
}

/** A config naming only the D1 bindings, marked remote, so nothing else is proxied. */
function remoteConfigPath(): string {
  const { rawConfig } = experimental_readRawConfig({ config: 'wrangler.toml' });
  mkdirSync('.wrangler', { recursive: true });
  const path = '.wrangler/remote-db.json';
  writeFileSync(
    path,
    JSON.stringify({
      name: rawConfig.name,
      compatibility_date: rawConfig.compatibility_date,
      d1_databases: (rawConfig.d1_databases ?? []).map((binding: object) => ({ ...binding, remote: true })),
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
  const databases = readDatabases(proxy.env);
  return { db: proxy.env.DB, databases, dispose: proxy.dispose };
}
