// The two bundles: the service as `wrangler deploy --dry-run --minify` outputs it (exactly what
// would be uploaded), and the raw baseline bundled and minified by the esbuild wrangler ships.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { workerAliases } from '../../scripts/lib/worker-aliases.ts';

export interface Bundle {
  /** The entry module to load into Miniflare. */
  scriptPath: string;
  /** Minified bytes of every JavaScript module in the output (not the source map). */
  minifiedBytes: number;
  /** The same, gzipped (level 9), as Cloudflare's size limits count it. */
  gzipBytes: number;
  modules: string[];
}

export function measure(dir: string, entry: string): Bundle {
  const modules = readdirSync(dir).filter((f) => /\.(m?js|cjs|wasm)$/.test(f));
  let minifiedBytes = 0;
  let gzipBytes = 0;
  for (const file of modules) {
    const bytes = readFileSync(join(dir, file));
    minifiedBytes += bytes.byteLength;
    gzipBytes += gzipSync(bytes, { level: 9 }).byteLength;
  }
  return { scriptPath: join(dir, entry), minifiedBytes, gzipBytes, modules };
}

/** `minify: false` keeps esbuild's per-module section comments, which bench/profile.ts reads. */
export interface BundleOptions {
  minify?: boolean;
  /**
   * The entry imports the service (bench/baseline/loaded.ts): resolve as wrangler does for it —
   * wrangler.toml's [alias] table, packages' `module`/`main` fields, the runtime's built-ins.
   */
  importsService?: boolean;
}

export function bundleOurs(relativeOutdir: string, { minify = true }: BundleOptions = {}, config = 'wrangler.toml'): Bundle {
  // Absolute: wrangler reads --outdir from the config's folder (admin/ for the admin Worker's).
  const outdir = resolve(relativeOutdir);
  rmSync(outdir, { recursive: true, force: true });
  const result = spawnSync(
    process.execPath,
    ['node_modules/wrangler/bin/wrangler.js', 'deploy', '--dry-run', '-c', config, '--outdir', outdir, minify ? '--minify' : '--no-minify'],
    { encoding: 'utf8', env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_LOG: 'warn' } },
  );
  if (result.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${result.stdout}\n${result.stderr}`);
  return measure(outdir, 'index.js');
}

/**
 * The admin API's Worker (admin/wrangler.toml) as deployed: the benches that make their accounts
 * through /admin serve it behind the service's ADMIN binding (server.ts `admin`).
 */
export function bundleAdmin(outdir: string): Bundle {
  return bundleOurs(outdir, {}, 'admin/wrangler.toml');
}

/** A plain Worker of bench/baseline/ (the raw baseline, the simulator floor). */
export async function bundlePlain(entry: string, outdir: string, { minify = true, importsService = false }: BundleOptions = {}): Promise<Bundle> {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: [entry],
    outfile: join(outdir, 'index.js'),
    bundle: true,
    minify,
    // A map beside the bundle, named nowhere in it (the bundle's bytes stay as measured), for
    // bench/lib/by-code.ts to name positions in it.
    sourcemap: 'external',
    format: 'esm',
    target: 'es2024',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    ...(importsService
      ? { mainFields: ['module', 'main'], external: ['node:*', 'cloudflare:*'], alias: workerAliases(process.cwd()) }
      : {}),
    logLevel: 'warning',
  });
  return measure(outdir, 'index.js');
}

/**
 * `wrangler deploy --dry-run --minify` into `dir`, and `entryPoint` (a bench entry that imports
 * src/index.ts) bundled beside it as bench-entry.js, its import of the service's source turned
 * into an import of the deployed bundle: the entry's path first, then the bundle's modules.
 */
export async function bundleWithEntry(entryPoint: string, dir: string): Promise<string[]> {
  const service = bundleOurs(dir);
  const serviceBundle: Plugin = {
    name: 'service-bundle',
    setup(b) {
      b.onResolve({ filter: /\/src\/index\.ts$/ }, () => ({ path: './index.js', external: true }));
    },
  };
  await build({
    entryPoints: [entryPoint],
    outfile: join(dir, 'bench-entry.js'),
    bundle: true,
    format: 'esm',
    target: 'es2024',
    platform: 'neutral',
    plugins: [serviceBundle],
    logLevel: 'warning',
  });
  return [join(dir, 'bench-entry.js'), ...service.modules.filter((m) => /\.m?js$/.test(m)).map((m) => join(dir, m))];
}
