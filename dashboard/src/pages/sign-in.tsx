// Sign-in by e-mailed link, and sign-out. The reply to a link request is the same page whether or
// not the address has an account (the e-mail is sent after the reply, in waitUntil, so not even
// the time taken differs by much). The link opens a page whose button makes the sign-in: mail
// scanners that fetch links do not use them up.
import { Hono, type Context } from 'hono';
import type { DashboardEnv } from '../env.ts';
import { readDatabases } from '../../../src/env.ts';
import { formFields, sessionDb, signedInForm } from '../http.ts';
import { addressKey, clearedSessionCookie, LINK_TTL_MS, sessionCookie } from '../session.ts';
import { BASE, ErrorSummary, Field, Notice, Page, type Errors } from '../views.tsx';
import { requestSignInLink, sessionRef, signIn, signInLinkTarget, signOut, signOutEverywhere } from '../workflows.ts';

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const EMAIL_MAX = 254;

function SignInForm({ email = '', errors = {} }: { email?: string; errors?: Errors }) {
  return (
    <>
      <ErrorSummary errors={errors} />
      <p>We e-mail you a link that signs you in. No password.</p>
      <form method="post" action={`${BASE}/sign-in`} novalidate>
        <Field name="email" label="E-mail address" type="email" value={email} error={errors.email} required autocomplete="email" maxlength={EMAIL_MAX} />
        <button type="submit">E-mail me a sign-in link</button>
      </form>
      <h2>Or use a passkey</h2>
      <form method="post" action={`${BASE}/sign-in/passkey`} data-passkey="sign-in" data-options={`${BASE}/sign-in/passkey/options`} data-status="passkey-status">
        <input type="hidden" name="credential" value="" />
        <button type="submit" class="secondary">Sign in with a passkey</button>
        <p id="passkey-status" class="hint" role="status">
          No e-mail needed, once you have added a passkey (this needs JavaScript).
        </p>
      </form>
    </>
  );
}

function signInPage(c: Context<DashboardEnv>, email: string, errors: Errors, status: 200 | 400 | 429 = 200, note?: string) {
  return c.html(
    <Page title="Sign in">
      {note ? <Notice>{note}</Notice> : null}
      <SignInForm email={email} errors={errors} />
    </Page>,
    status,
  );
}

function signInEmail(link: string, from: string, to: string) {
  const minutes = LINK_TTL_MS / 60_000;
  return {
    from,
    to,
    subject: 'Your sign-in link for the Scenario Service dashboard',
    text: `Sign in to the Scenario Service dashboard as ${to}:\n\n${link}\n\nThe link works once, within ${minutes} minutes. If you did not ask for it, ignore this e-mail: nobody can sign in without it.\n`,
  };
}

export const signInRoutes = new Hono<DashboardEnv>()
  .get('/sign-in', (c) => signInPage(c, '', {}, 200, c.req.query('signed_out') !== undefined ? 'You are signed out.' : undefined))
  .post('/sign-in', async (c) => {
    const form = await formFields(c);
    const email = (form?.email ?? '').trim();
    if (!EMAIL.test(email) || email.length > EMAIL_MAX) {
      return signInPage(c, email, { email: email === '' ? 'Enter your e-mail address' : 'Enter an e-mail address like name@example.com' }, 400);
    }
    // Counted per client address and per address asked for, whether or not it has an account, so
    // a refusal says nothing about accounts either.
    const client = c.get('client');
    const [byAddress, byEmail] = await Promise.all([
      c.env.SIGNIN_ADDRESS_LIMITER.limit({ key: addressKey(client.address) }),
      c.env.SIGNIN_EMAIL_LIMITER.limit({ key: email.toLowerCase() }),
    ]);
    if (!byAddress.success || !byEmail.success) {
      c.header('Retry-After', '60');
      return signInPage(c, email, { email: 'Too many sign-in requests. Wait a minute, then try again.' }, 429);
    }
    const config = c.get('config');
    // Links are built from the configured origin, never from the request's Host header (a request
    // with a forged Host would otherwise mail the owner of the address a link to another site).
    if (!config.publicOrigin) {
      console.error(JSON.stringify({ level: 'error', msg: 'PUBLIC_ORIGIN is not set: no sign-in link can be built' }));
      return c.text('The dashboard cannot send sign-in links: its PUBLIC_ORIGIN var is not set.', 500);
    }
    const token = await requestSignInLink(readDatabases(c.env), { email, open: config.openSignup, now: Date.now(), maxBytes: config.databaseMaxBytes });
    if (token) {
      const link = `${config.publicOrigin}${BASE}/sign-in/confirm?token=${token}`;
      c.executionCtx.waitUntil(
        c.env.EMAIL.send(signInEmail(link, config.emailFrom, email)).then(
          () => undefined,
          (error: unknown) => console.error(JSON.stringify({ level: 'error', msg: 'sign-in e-mail not sent', error: error instanceof Error ? error.name : 'unknown' })),
        ),
      );
    }
    return c.html(
      <Page title="Check your e-mail">
        <p>
          If <strong>{email}</strong> can sign in to this dashboard, a sign-in link is on its way to it. The link works once, within{' '}
          {LINK_TTL_MS / 60_000} minutes.
        </p>
        <p>
          <a href={`${BASE}/sign-in`}>Use another address</a>
        </p>
      </Page>,
    );
  })
  .get('/sign-in/confirm', async (c) => {
    const token = c.req.query('token') ?? '';
    const target = /^[A-Za-z0-9_-]{43}$/.test(token) ? await signInLinkTarget(readDatabases(c.env), token, Date.now()) : null;
    if (!target) return signInPage(c, '', {}, 400, 'That sign-in link has expired or was already used. Ask for a new one below.');
    return c.html(
      <Page title="Sign in">
        <p>
          Sign in to {target.name === null ? 'a new account' : <>the account <strong>{target.name}</strong></>} as <strong>{target.email}</strong>, in this
          browser.
        </p>
        <form method="post" action={`${BASE}/sign-in/confirm`}>
          <input type="hidden" name="token" value={token} />
          <button type="submit">{target.name === null ? 'Sign in' : `Sign in to ${target.name}`}</button>
        </form>
      </Page>,
    );
  })
  .post('/sign-in/confirm', async (c) => {
    const form = await formFields(c);
    const token = form?.token ?? '';
    const signedIn = /^[A-Za-z0-9_-]{43}$/.test(token)
      ? await signIn(readDatabases(c.env), { token, open: c.get('config').openSignup, now: Date.now(), client: c.get('client'), apiVersion: c.get('config').defaultApiVersion })
      : null;
    if (!signedIn) {
      return signInPage(c, '', {}, 400, 'That sign-in link has expired or was already used. Ask for a new one below.');
    }
    c.header('Set-Cookie', sessionCookie(signedIn.sessionId));
    return c.redirect(`${BASE}/keys`, 303);
  })
  .post('/sign-out', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    await signOut(sessionDb(c), await sessionRef(checked.sessionId), c.get('client'));
    c.header('Set-Cookie', clearedSessionCookie());
    return c.redirect(`${BASE}/sign-in?signed_out`, 303);
  })
  .post('/sign-out-everywhere', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    await signOutEverywhere(sessionDb(c), await sessionRef(checked.sessionId), c.get('client'));
    c.header('Set-Cookie', clearedSessionCookie());
    return c.redirect(`${BASE}/sign-in?signed_out`, 303);
  });
