// Writes the OpenAPI document the Worker serves at /openapi.json to openapi/openapi.json, so it
// can be linted, committed, published, and fed to client generators. It is built from the very
// route definitions (and zod schemas) the Worker validates with.
import { mkdirSync, writeFileSync } from 'node:fs';
import { openApiDocument } from '../src/app.ts';

const document = { ...openApiDocument(), servers: [{ url: 'http://127.0.0.1:8787', description: 'npm start' }] };
mkdirSync('openapi', { recursive: true });
writeFileSync('openapi/openapi.json', `${JSON.stringify(document, null, 2)}\n`);
console.log(`openapi/openapi.json: ${Object.keys(document.paths ?? {}).length} paths`);
