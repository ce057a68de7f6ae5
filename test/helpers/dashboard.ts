// Dashboard test helpers: a browser-like client of the dashboard Worker (dashboard/src/index.ts),
// called with the tests' own env (the same D1 and webhook queue the API uses), so that "create a
// key in the dashboard, call the API with it" is one test. The mail binding is replaced by a
// mailbox the test reads; everything else is the real thing.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import dashboard from '../../dashboard/src/index.ts';
import { BASE } from './api.ts';
import { readDatabases } from '../../src/env.ts';
import { wrapD1 } from './wrapped-d1.ts';

export const ORIGIN = BASE;

export interface SentEmail {
  from: string;
  to: string;
  subject: string;
  text: string;
}

/** A send_email binding that keeps what it is given. */
export function mailbox() {
  const sent: SentEmail[] = [];
  const binding = {
    send: async (message: SentEmail) => {
      sent.push(message);
      return { messageId: `<${crypto.randomUUID()}@test>` };
    },
  } as unknown as SendEmail;
  return { sent, binding, linkTo: (to: string) => sent.filter((m) => m.to === to).at(-1)?.text.match(/https?:\/\/\S+token=([A-Za-z0-9_-]+)/)?.[1] };
}

export interface DashboardReply {
  status: number;
  headers: Headers;
  text: string;
}

let addressCounter = 0;
/** A client address no other test uses, so the per-address sign-in limit counts only this test's requests. */
export function uniqueAddress(): string {
  addressCounter += 1;
  return `198.18.${Math.floor(Math.random() * 200)}.${addressCounter % 250}`;
}

export interface DashboardOptions {
  vars?: Record<string, string>;
  mail?: ReturnType<typeof mailbox>;
  address?: string;
  userAgent?: string;
  /** The D1 bindings the dashboard gets (DB, DB_2, …: wrapped ones, to count its round trips or fail them). */
  bindings?: Record<string, D1Database>;
}

/** One request to the dashboard Worker, as a browser on `address` would send it. */
export async function dashboardFetch(method: string, path: string, init: { cookie?: string | null; form?: Record<string, string> | URLSearchParams; origin?: string | null } & DashboardOptions = {}): Promise<DashboardReply> {
  const headers: Record<string, string> = {
    'cf-connecting-ip': init.address ?? '198.18.0.1',
    'user-agent': init.userAgent ?? 'vitest-dashboard',
  };
  if (init.cookie) headers.cookie = `__Host-session=${init.cookie}`;
  if (method === 'POST' && init.origin !== null) headers.origin = init.origin ?? ORIGIN;
  let body: string | undefined;
  if (init.form) {
    body = new URLSearchParams(init.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const ctx = createExecutionContext();
  const testEnv = { ...env, ...(init.vars ?? {}), ...(init.mail ? { EMAIL: init.mail.binding } : {}), ...(init.bindings ?? {}) };
  const res = await dashboard.fetch(new Request(ORIGIN + path, { method, headers, body, redirect: 'manual' }), testEnv, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, text };
}

/** The session cookie a reply sets, if any. */
export function sessionCookieOf(reply: DashboardReply): string | null {
  return /__Host-session=([^;]*)/.exec(reply.headers.get('set-cookie') ?? '')?.[1] || null;
}

/** The form token on a page. */
export function formTokenOn(html: string): string {
  const token = /name="_token" value="([0-9a-f]{64})"/.exec(html)?.[1];
  if (!token) throw new Error(`no form token on the page:\n${html.slice(0, 500)}`);
  return token;
}

/** Asks for a link for `email` and returns it (its token), from the mailbox. */
export async function requestLink(email: string, options: DashboardOptions = {}) {
  const mail = options.mail ?? mailbox();
  const reply = await dashboardFetch('POST', '/dashboard/sign-in', { ...options, mail, form: { email }, address: options.address ?? uniqueAddress() });
  return { reply, mail, token: mail.linkTo(email) };
}

/** A signed-in browser of `email` (whose account must exist, or `vars.DASHBOARD_SIGNUP` be "open"). */
export async function signIn(email: string, options: DashboardOptions = {}) {
  const address = options.address ?? uniqueAddress();
  const { token } = await requestLink(email, { ...options, address });
  if (!token) throw new Error(`no sign-in link was sent to ${email}`);
  const confirmed = await dashboardFetch('POST', '/dashboard/sign-in/confirm', { ...options, address, form: { token } });
  const cookie = sessionCookieOf(confirmed);
  if (confirmed.status !== 303 || !cookie) throw new Error(`sign-in failed: ${confirmed.status} ${confirmed.text.slice(0, 300)}`);
  return browser(cookie, { ...options, address });
}

/** A browser holding a session cookie: GET pages, POST forms with the page's form token. */
export function browser(cookie: string, options: DashboardOptions = {}) {
  let token: string | null = null;
  const get = async (path: string) => {
    const reply = await dashboardFetch('GET', path, { ...options, cookie });
    const found = /name="_token" value="([0-9a-f]{64})"/.exec(reply.text)?.[1];
    if (found) token = found;
    return reply;
  };
  return {
    cookie,
    get,
    /**
     * Sends a form as a browser does: a change's 303 is followed with a GET of its Location (the
     * reply is that page's, with `redirected` set to the 303's Location); `follow: false` returns
     * the POST's own reply.
     */
    async post(path: string, form: Record<string, string> | [string, string][] = {}, init: { origin?: string | null; withToken?: boolean; follow?: boolean } = {}): Promise<DashboardReply & { redirected: string | null }> {
      if (token === null) await get('/dashboard/keys');
      const params = new URLSearchParams(form);
      if (init.withToken !== false && token) params.set('_token', token);
      const reply = await dashboardFetch('POST', path, { ...options, cookie, form: params, origin: init.origin });
      const location = reply.headers.get('location');
      if (reply.status !== 303 || !location || init.follow === false) return { ...reply, redirected: null };
      const next = new URL(location, ORIGIN);
      return { ...(await get(next.pathname + next.search)), redirected: location };
    },
  };
}

/** The full key shown once on a keys page. */
export function shownKey(html: string): string {
  const key = /<code id="new-key">(scn_[0-9A-Za-z]{36})<\/code>/.exec(html)?.[1];
  if (!key) throw new Error(`no key shown on the page:\n${html.slice(0, 800)}`);
  return key;
}

/** D1 round trips (statements run alone, and batches) the dashboard makes through wrapped bindings, on every database. */
export function countingDb() {
  let calls = 0;
  const count = <T>(run: () => Promise<T>) => {
    calls += 1;
    return run();
  };
  const bindings = Object.fromEntries(readDatabases(env).map((db, i) => [i === 0 ? 'DB' : `DB_${i + 1}`, wrapD1(db, { statement: count, batch: count })]));
  return { bindings, take: () => calls, reset: () => (calls = 0) };
}
