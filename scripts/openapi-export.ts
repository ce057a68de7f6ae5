// Writes the OpenAPI documents, generated from the very route definitions (and zod schemas) the
// Worker validates with (scripts/lib/openapi-document.ts), one per API version, to
//  - openapi/openapi.json (2026-11-21, the specification's shapes) and openapi/openapi.<version>.json
//    (each later version), so they can be linted, committed, published, and fed to client
//    generators. The Worker names its own origin as the server; these files name production (a
//    template: the address depends on the Cloudflare account it is deployed to) and `npm start`;
//  - src/versions/openapi-document.generated.ts, what the Worker serves at /openapi.json (its bundle
//    has no generator, so the document costs nothing at isolate start).
// `--check` writes nothing and fails when either file is not what it would write; `--print`
// prints the document's compact JSON (vitest.config.ts hands it to test/openapi-drift.test.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { compactJson, generatedModule, generateOpenApiDocument, jsonOfGeneratedModule, olderDocuments } from './lib/openapi-document.ts';
import { NEWEST_API_VERSION, SPEC_API_VERSION } from '../src/api-versions.ts';

/** Where each version's document is committed: the specification's keeps the name it always had. */
const documentFile = (version: string) => (version === SPEC_API_VERSION ? 'openapi/openapi.json' : `openapi/openapi.${version}.json`);
const MODULE_FILE = 'src/versions/openapi-document.generated.ts';

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
const documents = new Map([[NEWEST_API_VERSION, generated], ...olderDocuments(generated)]);
const texts = new Map([...documents].map(([version, document]) => [documentFile(version), `${JSON.stringify({ ...document, servers }, null, 2)}\n`]));
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
    ...[...texts].map(([file, text]) => (read(file) === text ? undefined : file)),
    jsonOfGeneratedModule(read(MODULE_FILE) ?? '') === json && read(MODULE_FILE) === generatedModule(json) ? undefined : MODULE_FILE,
  ].filter((file) => file !== undefined);
  if (stale.length > 0) {
    console.error(`${stale.join(' and ')} ${stale.length > 1 ? 'are' : 'is'} out of date: run \`npm run openapi\` and commit openapi/, client/ and ${MODULE_FILE}`);
    process.exit(1);
  }
  console.log(`${[...texts.keys()].join(', ')} and ${MODULE_FILE} are up to date`);
} else {
  mkdirSync('openapi', { recursive: true });
  for (const [file, text] of texts) writeFileSync(file, text);
  writeFileSync(MODULE_FILE, generatedModule(json));
  console.log(`${[...texts.keys()].join(', ')}: ${Object.keys(generated.paths ?? {}).length} paths; ${MODULE_FILE}: ${json.length} bytes deflated to ${generatedModule(json).length}`);
}
