// Writes the OpenAPI document the Worker serves at /openapi.json to openapi/openapi.json, so it
// can be linted, committed, published, and fed to client generators. It is built from the very
// route definitions (and zod schemas) the Worker validates with. The Worker names its own origin
// as the server; this file names production (a template: the address depends on the Cloudflare
// account it is deployed to) and `npm start`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { openApiDocument } from '../src/app.ts';

const servers = [
  {
    url: 'https://scenario-service.{subdomain}.workers.dev',
    description: 'Production, on workers.dev (or the custom domain it is deployed to)',
    variables: { subdomain: { default: 'example', description: "The Cloudflare account's workers.dev subdomain" } },
    'x-internal': false,
  },
  { url: 'http://127.0.0.1:8787', description: 'Local development (npm start)', 'x-internal': true },
];

const document = { ...openApiDocument(), servers };
mkdirSync('openapi', { recursive: true });
writeFileSync('openapi/openapi.json', `${JSON.stringify(document, null, 2)}\n`);
console.log(`openapi/openapi.json: ${Object.keys(document.paths ?? {}).length} paths`);
