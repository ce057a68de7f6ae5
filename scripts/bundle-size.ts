// npm run size (run by CI): builds what `wrangler deploy` would upload (`wrangler deploy --dry-run`,
// minified as wrangler.toml says) and fails when the Worker's JavaScript grows past the cap below.
// Every KiB is parsed and run on each new isolate (cold start), so growth has to be a decision:
// raise the cap here and in bench/README.md ("Bundle size") together, saying why.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * 279.7 KiB measured on 2026-11-24 (wrangler 4.155.0) plus about 15 %; 288.2 KiB with the export
 * and the filters (20:30Z, plus 11 %), left at 320 rather than raised. It was 415 (360.2 KiB plus
 * 15 %) before the cold-start work (bench/README.md, Cold start): zod's `z` listing what src/ uses
 * (−41 KiB), drizzle's rendering as src/db/drizzle-lite/ (−38 KiB) and no OpenAPI generator in the
 * Worker (−35 KiB, less the 23 KiB of the deflated document it serves). Every KiB is compiled when
 * an isolate starts (`npm run bench:startup`). Raised to 340 with PATCH and share links (issue 34:
 * 323.9 KiB against main's 293.5, +30.4 KiB; bench/README.md, "Bundle size"), and to 360 with API
 * versions (344.1 KiB with all of this round: +16 KiB of versions, of which most is the deflated
 * documents of both versions, a string the isolate scans rather than compiles). Raised to 380 with
 * moving an account (issue 37 part B: 371.2 KiB against main's 348.5, +22.7 KiB: the mover 14.6, a
 * module loaded by the admin route's dynamic import, so an isolate initialises it only when an
 * operator moves an account; the admin route, its document parts and the forwardings about 8).
 * Lowered to 357 when the admin API and the mover left for a Worker of their own (admin/, below):
 * 339.9 KiB on 2026-11-27 against main's 372.1 (−32.2 KiB), plus about 5 %.
 */
const MAX_KIB = 357;

/**
 * The dashboard Worker (dashboard/wrangler.toml), measured the same way: a Worker of its own, so
 * none of it is in the API's bundle above. 109.7 KiB measured on 2026-11-24 (its pages and
 * workflows 40, Hono with its JSX 31, the shared db modules 24); with members, roles,
 * invitations and the forms' flash (140.5 on 2026-11-27). Raised for passkeys: 186.8 KiB on
 * 2026-11-27, of which WebAuthn's parsing (@oslojs/webauthn with its CBOR, 29 KiB; the smallest
 * well-kept choice: @simplewebauthn/server is about 305) and the passkey pages, statements and
 * script (16 KiB); 195.0 after the rebase on 64e0287 (issue 33's API version page); plus about 5 %.
 */
const DASHBOARD_MAX_KIB = 205;

/**
 * The admin API's Worker (admin/wrangler.toml), measured the same way: its routes, schemas and the
 * mover, with the app's middleware, error handlers and version layer it shares with the API. 198.8
 * KiB on 2026-11-27, plus about 5 %.
 */
const ADMIN_MAX_KIB = 209;

/** Builds one Worker as `wrangler deploy` would and prints its size; false when it is over its cap or fails to build. */
function measure(label: string, config: string, cap: number, capName: string): boolean {
  const outdir = mkdtempSync(join(tmpdir(), 'scenario-bundle-'));
  try {
    const result = spawnSync(process.execPath, ['node_modules/wrangler/bin/wrangler.js', 'deploy', '--dry-run', '-c', config, '--outdir', outdir], {
      encoding: 'utf8',
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_LOG: 'warn' },
    });
    if (result.status !== 0) {
      console.error(`wrangler deploy --dry-run -c ${config} failed:\n${result.stdout}\n${result.stderr}`);
      return false;
    }
    let bytes = 0;
    let gzipBytes = 0;
    for (const file of readdirSync(outdir).filter((f) => /\.(m?js|cjs|wasm)$/.test(f))) {
      const content = readFileSync(join(outdir, file));
      bytes += content.byteLength;
      gzipBytes += gzipSync(content, { level: 9 }).byteLength;
    }
    const kib = (n: number) => (n / 1024).toFixed(1);
    const line = `${label}: ${kib(bytes)} KiB minified (${kib(gzipBytes)} KiB gzipped); cap ${cap} KiB`;
    if (bytes > cap * 1024) {
      console.error(`${line}: over the cap. Find what grew (npx wrangler deploy --dry-run -c ${config} --outdir dist --metafile), or raise ${capName} in scripts/bundle-size.ts and bench/README.md together.`);
      return false;
    }
    console.log(line);
    return true;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

const api = measure('Worker bundle', 'wrangler.toml', MAX_KIB, 'MAX_KIB');
const dashboard = measure('Dashboard Worker bundle', 'dashboard/wrangler.toml', DASHBOARD_MAX_KIB, 'DASHBOARD_MAX_KIB');
const admin = measure('Admin Worker bundle', 'admin/wrangler.toml', ADMIN_MAX_KIB, 'ADMIN_MAX_KIB');
if (!api || !dashboard || !admin) process.exit(1);
