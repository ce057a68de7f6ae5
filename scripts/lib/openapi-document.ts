// The OpenAPI 3.1 document, generated from the app's route definitions and zod schemas by
// @hono/zod-openapi (zod-to-openapi) under Node, at build time: `npm run openapi` writes it to
// openapi/openapi.json and, for the Worker to serve, to src/versions/openapi-document.generated.ts.
// It describes the admin API's routes too (admin/src/routes.ts, served by the admin Worker).
// The Worker bundle has no generator (src/http/zod-openapi-runtime.ts stands in for the package
// there): nothing of this runs at isolate start. Here that module resolves to the real package
// (./real-zod-openapi.ts), so the app is imported only once that hook is in place.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import './real-zod-openapi.ts';
import { applyParts } from '../../src/versions/document.ts';
import { API_VERSIONS, NEWEST_API_VERSION, type ApiVersion } from '../../src/api-versions.ts';

const { mountResources } = await import('../../src/app.ts');
const { serviceApp } = await import('../../src/service-app.ts');
const { adminRoutes } = await import('../../admin/src/routes.ts');
const { buildRouteTable } = await import('../../src/http/routing.ts');

// The API's app with the admin API's routes mounted where the document lists them: the admin
// API is another Worker's (admin/), reached under the API's origin, and documented as part of it.
const app = serviceApp();
mountResources(app, adminRoutes);
const routeTable = () => buildRouteTable(app.routes, app.openAPIRegistry.definitions);
const { methodNotAllowedResponse } = await import('../../src/http/openapi.ts');
const { routesReachedBy405 } = await import('../../src/http/routing.ts');
const { documentPartsFor } = await import('../../src/versions/documents.ts');

export type OpenAPIDocument = ReturnType<typeof app.getOpenAPI31Document>;

const DESCRIPTION = `Household scenarios for public-benefit analysis: the adults and children of a family, their
incomes, the US state and year, and the programs to evaluate.

Every route except the chart and this document needs \`Authorization: Bearer <API key>\`.

**Errors** are RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\`; each
response below lists the codes it can carry. A path the API does not have answers 404
(\`not_found\`); a known path with a method it does not serve answers 405 (\`method_not_allowed\`)
with an \`Allow\` header. Every route refuses query parameters it does not list (400
\`invalid_query\`, each named in \`errors\`), and a credential in a URL (\`?api_key=\`, a key as any
value) is refused on every path before authentication: send keys only in \`Authorization\`.

**Versions**: dated, like \`2026-12-01\`. A request gets the \`API-Version\` header's version when it sends one,
else the version its account is pinned to; every reply names its version in \`API-Version\`.
\`GET /api_versions\` lists the versions and what each changed; \`/openapi.json?api_version=<version>\`
is any version's document.

**Rate limits**: requests per API key (\`RateLimit-Policy: "per-key"\`) and failed authentications
per client address (\`"failed-auth"\`); over either, 429 with \`Retry-After\` and \`RateLimit\`.`;

/** The newest version's document as the Worker serves it, less `servers` (the caller's origin, added per request). */
export function generateOpenApiDocument(): OpenAPIDocument {
  return withLicense(
    with405s(
      app.getOpenAPI31Document({
        openapi: '3.1.0',
        info: {
          title: 'Scenario Service',
          version: NEWEST_API_VERSION,
          description: DESCRIPTION,
          // Placeholders until the operator names a support address and a licence.
          contact: { name: 'Scenario Service maintainers', email: 'api@scenario-service.example' },
        },
        tags: [
          { name: 'Scenarios', description: "The caller's household scenarios: list, view, create, save, patch, delete, and their charts" },
          { name: 'Share links', description: 'Read-only links to a scenario for people without a key: create, list, revoke, and the page a link opens' },
          { name: 'Revisions', description: "A scenario's history: every version a create, save or restore stored; view, restore and diff them" },
          { name: 'Events', description: "Every change to the caller's scenarios, kept 30 days" },
          { name: 'Webhooks', description: 'Endpoints that receive the events as signed POSTs (Standard Webhooks), and their delivery attempts' },
          { name: 'Account', description: 'The account an API key belongs to' },
          { name: 'Versions', description: 'The API versions, and what each changed (no key needed)' },
          { name: 'Admin', description: 'For operators, under the admin token (ADMIN_TOKEN), not an API key: accounts, their API keys and API version, and moving an account to another database' },
        ],
        security: [{ ApiKey: [] }],
      }),
    ),
  );
}

/**
 * 405 on the operations that tools matching paths by template alone (Prism as a validating proxy,
 * for one) route a 405 to: GET /scenarios/save answers 405, and such a tool takes it for
 * GET /scenarios/{token}. OpenAPI cannot describe the methods a path lacks, so this is where the
 * answer can be documented; a path with no operation for the method at all is refused by those
 * tools before the service is asked.
 */
function with405s(generated: OpenAPIDocument): OpenAPIDocument {
  const paths = generated.paths ?? {};
  for (const route of routesReachedBy405(routeTable())) {
    const operation = paths[route.path]?.[route.method.toLowerCase() as 'get'];
    if (!operation?.responses) continue;
    const sorted = Object.entries({ ...operation.responses, 405: methodNotAllowedResponse() }).sort(([a], [b]) => a.localeCompare(b));
    operation.responses = Object.fromEntries(sorted);
  }
  return generated;
}

/** The 3.1 licence object (an SPDX identifier), which the generator's 3.0-typed config cannot take. */
function withLicense(generated: OpenAPIDocument): OpenAPIDocument {
  return { ...generated, info: { ...generated.info, license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } } };
}

/** The document as JSON carries it: what the Worker stores and serves (`undefined` members dropped). */
export const compactJson = (document: object): string => JSON.stringify(document);

/** Every older version's document: the newest with its later changes' parts put back. */
export function olderDocuments(newest: OpenAPIDocument): Map<ApiVersion, OpenAPIDocument> {
  return new Map(API_VERSIONS.slice(1).map((version) => [version, applyParts(structuredClone(newest), documentPartsFor(version))]));
}

const deflate = (json: string) => deflateRawSync(json, { level: 9 }).toString('base64');

/**
 * src/versions/openapi-document.generated.ts for the newest document's compact JSON: that document,
 * and per older version the parts that make its document from it (a few KiB, not a second copy).
 */
export function generatedModule(json: string): string {
  const parts = API_VERSIONS.slice(1).map((version) => `  '${version}': '${deflate(JSON.stringify(documentPartsFor(version)))}',`);
  return `// Generated by \`npm run openapi\` (scripts/openapi-export.ts) from the route definitions: do not edit.
// The OpenAPI document the Worker serves at /openapi.json, less \`servers\`, for the newest API
// version: compact JSON (${json.length} bytes), deflate-raw, base64; and per older version, the parts
// that make its document from the newest (src/versions/document.ts), deflated the same way.
// test/openapi-drift.test.ts fails when it is stale.
export const DEFLATED_DOCUMENT =
  '${deflate(json)}';
export const DOCUMENT_BYTES = ${Buffer.byteLength(json)};
export const DEFLATED_PARTS: Record<string, string> = {
${parts.join('\n')}
};
`;
}

/** The compact JSON a generated module holds (for the staleness check). */
export function jsonOfGeneratedModule(source: string): string | undefined {
  const base64 = /'([A-Za-z0-9+/=]+)'/.exec(source)?.[1];
  return base64 === undefined ? undefined : inflateRawSync(Buffer.from(base64, 'base64')).toString('utf8');
}
