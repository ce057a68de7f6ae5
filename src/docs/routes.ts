// GET /docs — an interactive reference (Swagger UI) of /openapi.json. The page is small and
// served here; Swagger UI's files come from Workers Static Assets (public/docs), never a CDN.
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Scenario Service API reference</title>
<link rel="stylesheet" href="/docs/vendor/swagger-ui.css">
</head>
<body>
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
