// What every dashboard request goes through: hardening headers, the request's config, client and
// session cookie, and the cross-site checks on every change (a foreign Origin, then a missing or
// wrong form token, each a 403). Middleware only adds to the context or refuses.
import type { Context, MiddlewareHandler } from 'hono';
import { STYLESHEET } from './assets.ts';
import { readDatabases } from '../../src/env.ts';
import { readConfig, type DashboardEnv } from './env.ts';
import { openFlash, sealFlash, type Flash } from './flash.ts';
import { databaseOfSecret, formToken, sameText, SESSION_DATABASE_HEADER, sessionIdFrom } from './session.ts';
import { BASE } from './views.tsx';

// Only this Worker's own stylesheet and script; forms post only here; never framed; the sign-in
// link's token never leaves in a Referer (strict-origin: a Referer is the origin alone). Not
// no-referrer: under it browsers send `Origin: null` with a form's POST, which the cross-site
// check below must refuse (the browser check, npm run test:browser, found this).
// connect-src 'self': the passkey forms' script asks this Worker for WebAuthn options (fetch).
const CSP = "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const hardening: MiddlewareHandler<DashboardEnv> = async (c, next) => {
  await next();
  c.header('Content-Security-Policy', CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'strict-origin');
  c.header('Strict-Transport-Security', 'max-age=31536000');
  if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
};

export const requestContext: MiddlewareHandler<DashboardEnv> = async (c, next) => {
  c.set('config', readConfig(c.env));
  c.set('client', { address: c.req.header('cf-connecting-ip') ?? null, userAgent: c.req.header('user-agent')?.slice(0, 300) ?? null });
  c.set('sessionId', sessionIdFrom(c.req.header('cookie')));
  // Set only by this Worker (moved.ts removes a client's), on the second try of a moved account's session.
  const moved = c.req.header(SESSION_DATABASE_HEADER);
  c.set('sessionDatabase', moved !== undefined && /^[0-9]{1,2}$/.test(moved) ? Number(moved) : null);
  await next();
};

/** A refusal page (403). */
export function forbidden(c: Context<DashboardEnv>, why: string): Response {
  return refusedPage(c, why, 403);
}

/** A refusal as a page of its own: why, and the way back (403 for a refusal, 503 for a change held for a moment). */
export function refusedPage(c: Context<DashboardEnv>, why: string, status: 403 | 503, headers: Record<string, string> = {}): Response {
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Refused · Scenario Service dashboard</title><link rel="stylesheet" href="${BASE}/assets/dashboard.css"><link rel="icon" href="${BASE}/assets/favicon.svg" type="image/svg+xml"></head><body><main id="main"><h1>Refused</h1><p>${why}</p><p><a href="${BASE}">Back to the dashboard</a></p></main></body></html>`,
    status,
    headers,
  );
}

/**
 * Every POST: its Origin must be this one (browsers send Origin on every POST; a request from
 * another site, or with `Origin: null`, is refused before anything is read).
 */
export const sameOrigin: MiddlewareHandler<DashboardEnv> = async (c, next) => {
  if (c.req.method !== 'POST') return next();
  const origin = c.req.header('origin');
  if (origin !== undefined && origin !== new URL(c.req.url).origin) {
    return forbidden(c, 'This change came from another site. Make it from the dashboard itself.');
  }
  return next();
};

/** Form bodies are small; anything larger is not ours. */
const MAX_FORM_BYTES = 16 * 1024;

/** The submitted form, or null when it is not a small urlencoded form. */
async function readForm(c: Context<DashboardEnv>): Promise<URLSearchParams | null> {
  const length = Number(c.req.header('content-length') ?? '0');
  if (length > MAX_FORM_BYTES) return null;
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return null;
  // Bytes decoded here: workerd warns when .text() reads a body whose type is not text.
  const bytes = await c.req.arrayBuffer();
  return bytes.byteLength > MAX_FORM_BYTES ? null : new URLSearchParams(new TextDecoder().decode(bytes));
}

/** The submitted form's fields (the last value of a repeated one), or null when it is not a small form. */
export async function formFields(c: Context<DashboardEnv>): Promise<Record<string, string> | null> {
  const params = await readForm(c);
  return params ? Object.fromEntries(params) : null;
}

/**
 * A signed-in change: the form, once its `_token` matches the session's form token; otherwise a
 * 403 response. The session itself is checked by the change's own batch.
 */
export async function signedInForm(
  c: Context<DashboardEnv>,
): Promise<{ form: Record<string, string>; params: URLSearchParams; sessionId: string } | Response> {
  const sessionId = c.get('sessionId');
  if (!sessionId) return c.redirect(`${BASE}/sign-in`, 303);
  const params = await readForm(c);
  const sent = params?.get('_token');
  if (!params || !sent || !sameText(sent, await formToken(sessionId))) {
    return forbidden(c, 'This form has expired or did not come from the dashboard. Go back, reload the page and try again.');
  }
  return { form: Object.fromEntries(params), params, sessionId };
}

/**
 * The database of the request's session: the one its id names (session.ts `newSecretOn`), where
 * the account, its session and everything its pages show are (docs/decisions.md, "Capacity past
 * one database"). Without a session, or naming a database not bound, the first: the session's
 * check then finds nothing and the page goes to sign-in.
 */
export function sessionDb(c: Context<DashboardEnv>): D1Database {
  const sessionId = c.get('sessionId');
  return (sessionId === null ? undefined : readDatabases(c.env)[sessionDatabase(c)]) ?? c.env.DB;
}

/** The database the request's session names (its index; 0 is DB), for what names it in turn (a new key). */
export function sessionDatabase(c: Context<DashboardEnv>): number {
  const sessionId = c.get('sessionId');
  return sessionId === null ? 0 : (c.get('sessionDatabase') ?? databaseOfSecret(sessionId));
}

/** Seals a change's flash under the request's session (flash.ts): what the page after it shows once. */
export const sealer = (sessionId: string) => (flash: Flash) => sealFlash(sessionId, flash);

/** The flash a page's batch read (and cleared), opened under the request's session. */
export const flashOf = (sessionId: string, sealed: string | null) => openFlash(sessionId, sealed);

/**
 * A change made: 303 to the page that shows it (its flash holds what it shows once), so a reload
 * of that page asks for the page again and repeats nothing.
 */
export function changed(c: Context<DashboardEnv>, path: string): Response {
  return c.redirect(`${BASE}${path}`, 303);
}

/** Where a request without a live session goes. */
export function toSignIn(c: Context<DashboardEnv>): Response {
  return c.redirect(`${BASE}/sign-in`, 303);
}

export const assetHeaders = { 'Cache-Control': 'public, max-age=300' };
export const stylesheet = (c: Context<DashboardEnv>) => c.body(STYLESHEET, 200, { 'Content-Type': 'text/css; charset=utf-8', ...assetHeaders });
