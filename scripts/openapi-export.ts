// Writes the OpenAPI document, generated from the very route definitions (and zod schemas) the
// Worker validates with (scripts/lib/openapi-document.ts), to
//  - openapi/openapi.json, so it can be linted, committed, published, and fed to client
//    generators. The Worker names its own origin as the server; this file names production (a
//    template: the address depends on the Cloudflare account it is deployed to) and `npm start`;
//  - src/http/openapi-document.generated.ts, what the Worker serves at /openapi.json (its bundle
//    has no generator, so the document costs nothing at isolate start).
// `--check` writes nothing and fails when either file is not what it would write; `--print`
// prints the document's compact JSON (vitest.config.ts hands it to test/openapi-drift.test.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { compactJson, generatedModule, generateOpenApiDocument, jsonOfGeneratedModule } from './lib/openapi-document.ts';

const DOCUMENT_FILE = 'openapi/openapi.json';
const MODULE_FILE = 'src/http/openapi-document.generated.ts';

const servers = [
  {
    url: 'https://scenario-service.{subdomain}.workers.dev',
    description: 'Production, on workers.dev (or the custom domain it is deployed to)',
    variables: { subdomain: { default: 'example', description: "The Cloudflare account's workers.dev subdomain" } },
    'x-internal': false,
  },
  { url: 'http://127.0.0.1:8787', description: 'Local development (npm start)', 'x-internal': true },
];

const generated = generateOpenApiDocument();
const json = compactJson(generated);
const document = { ...generated, servers };
const documentText = `${JSON.stringify(document, null, 2)}\n`;
const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

if (process.argv.includes('--print')) {
  process.stdout.write(json);
} else if (process.argv.includes('--check')) {
  const stale = [
    read(DOCUMENT_FILE) === documentText ? undefined : DOCUMENT_FILE,
    jsonOfGeneratedModule(read(MODULE_FILE) ?? '') === json ? undefined : MODULE_FILE,
  ].filter((file) => file !== undefined);
  if (stale.length > 0) {
    console.error(`${stale.join(' and ')} ${stale.length > 1 ? 'are' : 'is'} out of date: run \`npm run openapi\` and commit openapi/, client/ and ${MODULE_FILE}`);
    process.exit(1);
  }
  console.log(`${DOCUMENT_FILE} and ${MODULE_FILE} are up to date`);
} else {
  mkdirSync('openapi', { recursive: true });
  writeFileSync(DOCUMENT_FILE, documentText);
  writeFileSync(MODULE_FILE, generatedModule(json));
  console.log(`${DOCUMENT_FILE}: ${Object.keys(document.paths ?? {}).length} paths; ${MODULE_FILE}: ${json.length} bytes deflated to ${generatedModule(json).length}`);
}
