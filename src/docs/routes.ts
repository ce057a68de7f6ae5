// GET /docs — an interactive reference (Swagger UI) of /openapi.json. The page is small and
// served here; Swagger UI's files come from Workers Static Assets (public/docs), never a CDN.
// `?api_version=` picks the version the page shows (links at its top; init.js reads it).
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import { API_VERSIONS } from '../api-versions.ts';

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Scenario Service API reference</title>
<link rel="stylesheet" href="/docs/vendor/swagger-ui.css">
</head>
<body>
<nav aria-label="API version" style="font:14px sans-serif;padding:8px 20px">
API version: <span id="api-versions">${API_VERSIONS.map((v, i) => `<a href="/docs?api_version=${v}">${v}${i === 0 ? ' (newest)' : ''}</a>`).join(' · ')}</span>
· <a href="/api_versions">what each version changed</a>
</nav>
<div id="swagger-ui"></div>
<script src="/docs/vendor/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

export const docsRoutes = new Hono<AppEnv>().get('/docs', (c) =>
  c.html(PAGE, 200, {
    'Cache-Control': 'public, max-age=300',
    'Content-Security-Policy':
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:",
  }),
);
