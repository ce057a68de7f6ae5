// Copies Swagger UI's browser files from node_modules into public/docs/vendor, where Workers
// Static Assets serves them (locally and deployed), so /docs works with no CDN and no internet.
// wrangler.toml's [build] command runs this before every `wrangler dev` (so `npm start`) and
// `wrangler deploy`; the copies are git-ignored.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export function copyDocsAssets(): void {
  const source = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const target = 'public/docs/vendor';
  mkdirSync(target, { recursive: true });
  for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE']) copyFileSync(join(source, file), join(target, file));
}

if (import.meta.main) copyDocsAssets();
