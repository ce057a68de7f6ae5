// The Developers section's app: hardening, the request's context, the cross-site check on every
// change, then one sub-app per page.
import { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import { FAVICON, SCRIPT } from './assets.ts';
import type { DashboardEnv } from './env.ts';
import { assetHeaders, hardening, requestContext, sameOrigin, stylesheet, toSignIn } from './http.ts';
import { accountRoutes } from './pages/account.tsx';
import { keyRoutes } from './pages/keys.tsx';
import { memberRoutes } from './pages/members.tsx';
import { passkeyRoutes } from './pages/passkeys.tsx';
import { signInRoutes } from './pages/sign-in.tsx';
import { webhookRoutes } from './pages/webhooks.tsx';
import { BASE } from './views.tsx';
import { forbidden, refusedPage } from './http.ts';
import { AccountMovingError, ForbiddenError, SignedOutError } from './workflows.ts';

// TrieRouter, as the API's (src/app.ts): Hono's default router first tries RegExpRouter, which
// refuses `:change{disable|enable}` by throwing, on the first request.
export const dashboardApp = new Hono<DashboardEnv>({ router: new TrieRouter() }).basePath(BASE);

dashboardApp.use('*', hardening);
dashboardApp.use('*', requestContext);
dashboardApp.use('*', sameOrigin);

dashboardApp
  .get('/', (c) => c.redirect(c.get('sessionId') ? `${BASE}/keys` : `${BASE}/sign-in`, 303))
  .get('/assets/dashboard.css', stylesheet)
  .get('/assets/dashboard.js', (c) => c.body(SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', ...assetHeaders }))
  .get('/assets/favicon.svg', (c) => c.body(FAVICON, 200, { 'Content-Type': 'image/svg+xml', ...assetHeaders }))
  .route('/', signInRoutes)
  .route('/', keyRoutes)
  .route('/', webhookRoutes)
  .route('/', memberRoutes)
  .route('/', passkeyRoutes)
  .route('/', accountRoutes);

dashboardApp.notFound((c) => c.text('Not found', 404));
dashboardApp.onError((error, c) => {
  // The session ended (signed out elsewhere, expired) between the cookie and the batch: sign in again.
  if (error instanceof SignedOutError) return toSignIn(c);
  // The permission table refused the member's role (permissions.ts): the batch changed nothing.
  if (error instanceof ForbiddenError) return forbidden(c, `A ${error.role} of this account cannot make this change. Ask an owner.`);
  // A move's write pause (seconds): nothing changed; the same change goes through once it ends.
  if (error instanceof AccountMovingError) {
    return refusedPage(c, 'This account is being moved to another database, which holds changes for a few seconds. Nothing was changed: go back and send it again in a moment.', 503, { 'Retry-After': '2' });
  }
  console.error(JSON.stringify({ level: 'error', msg: 'dashboard request failed', path: new URL(c.req.url).pathname, error: error.name }));
  return c.text('Something went wrong. Try again in a moment.', error.name === 'DatabaseUnavailableError' ? 503 : 500);
});
