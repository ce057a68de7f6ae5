// Passkeys: a signed-in member's list (add, rename, remove), and sign-in with one (no e-mail typed).
// The browser's part (navigator.credentials) is the dashboard's one script (assets.ts): it asks for
// options (a challenge the server stores), lets the authenticator answer, puts the answer in the
// form's hidden field and submits the form, which answers 303 like every change. Without script
// the forms say what they need; everything else works as before.
import { Hono, type Context } from 'hono';
import { readDatabases } from '../../../src/env.ts';
import type { DashboardEnv } from '../env.ts';
import type { Flash } from '../flash.ts';
import { changed, flashOf, formFields, sealer, sessionDatabase, sessionDb, signedInForm, toSignIn } from '../http.ts';
import { newChallenge, PasskeyError, readAssertion, relyingParty, verifyRegistration, type RelyingParty } from '../passkeys.ts';
import { addressKey, formToken, sessionCookie } from '../session.ts';
import { BASE, ErrorSummary, Field, Notice, Page, Table, Time, Token, type Errors } from '../views.tsx';
import { passkeySignIn, passkeysPage, registerPasskey, registrationChallenge, removePasskey, renamePasskey, sessionRef, signInChallenge, type PasskeysPage } from '../workflows.ts';

const NAME_MAX = 60;
const CREDENTIAL_ID = /^[A-Za-z0-9_-]{16,1365}$/;

function FlashView({ flash }: { flash: Flash | null }) {
  if (flash?.kind === 'passkey.registered') return <Notice>{`Passkey "${flash.name}" added. Next time, sign in with it: no e-mail needed.`}</Notice>;
  if (flash?.kind === 'passkey.renamed') return <Notice>The passkey is renamed.</Notice>;
  if (flash?.kind === 'passkey.removed') return <Notice>The passkey is removed: it signs in no more.</Notice>;
  return null;
}

async function render(c: Context<DashboardEnv>, sessionId: string, page: PasskeysPage, extra: { name?: string; errors?: Errors } = {}, status: 200 | 400 = 200) {
  const token = await formToken(sessionId);
  const flash = await flashOf(sessionId, page.me.flash);
  const errors = extra.errors ?? {};
  return c.html(
    <Page title="Passkeys" me={page.me} token={token} section="passkeys">
      <FlashView flash={flash} />
      <p>A passkey signs you in as {page.me.email} with your device's screen lock or security key, without waiting for an e-mail. The e-mailed link keeps working.</p>
      {page.passkeys.length === 0 ? (
        <p>You have no passkeys yet.</p>
      ) : (
        <Table label="Your passkeys" columns={['Name', 'Added', 'Last used', 'Actions']}>
          {page.passkeys.map((passkey, index) => (
            <tr>
              <td class="token">{passkey.name}</td>
              <td>
                <Time ms={passkey.createdAt} />
              </td>
              <td>
                <Time ms={passkey.lastUsedAt} empty="never" />
              </td>
              <td>
                <form method="post" action={`${BASE}/passkeys/${passkey.id}/rename`} class="inline">
                  <Token value={token} />
                  <label for={`rename-${index}`}>New name</label>
                  <input type="text" id={`rename-${index}`} name="name" required maxlength={NAME_MAX} value={passkey.name} />
                  <button type="submit" class="secondary" aria-label={`Rename the passkey ${passkey.name}`}>
                    Rename
                  </button>
                </form>
                <form method="post" action={`${BASE}/passkeys/${passkey.id}/remove`} class="inline">
                  <Token value={token} />
                  <button type="submit" class="danger" aria-label={`Remove the passkey ${passkey.name}`}>
                    Remove
                  </button>
                </form>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <section aria-labelledby="add-passkey">
        <h2 id="add-passkey">Add a passkey</h2>
        <ErrorSummary errors={errors} />
        <form method="post" action={`${BASE}/passkeys`} data-passkey="register" data-options={`${BASE}/passkeys/options`} data-status="passkey-status" novalidate>
          <Token value={token} />
          <input type="hidden" name="credential" value="" />
          <Field name="name" label="Name" hint="To tell your passkeys apart, e.g. the device it is on." value={extra.name ?? ''} error={errors.name} required maxlength={NAME_MAX} autocomplete="off" />
          <button type="submit">Add a passkey</button>
          <p id="passkey-status" class="hint" role="status">
            Your browser asks your device to make the passkey (this needs JavaScript).
          </p>
        </form>
      </section>
    </Page>,
    status,
  );
}

/** The relying party, from PUBLIC_ORIGIN only; null when it is not set. */
const rpOf = (c: Context<DashboardEnv>): RelyingParty | null => {
  const origin = c.get('config').publicOrigin;
  return origin ? relyingParty(origin) : null;
};

const noOrigin = (c: Context<DashboardEnv>) => c.text('The dashboard cannot use passkeys: its PUBLIC_ORIGIN var is not set.', 500);

export const passkeyRoutes = new Hono<DashboardEnv>()
  .get('/passkeys', async (c) => {
    const sessionId = c.get('sessionId');
    if (!sessionId) return toSignIn(c);
    return render(c, sessionId, await passkeysPage(sessionDb(c), await sessionRef(sessionId)));
  })
  // The options of navigator.credentials.create: a challenge stored for this session, 5 minutes.
  .post('/passkeys/options', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const rp = rpOf(c);
    if (!rp) return noOrigin(c);
    const challenge = newChallenge();
    const page = await registrationChallenge(sessionDb(c), await sessionRef(checked.sessionId), sessionDatabase(c), challenge);
    return c.json({
      challenge,
      rp: { id: rp.id, name: 'Scenario Service' },
      user: { id: page.userHandle, name: page.me.email, displayName: page.me.email },
      exclude: page.passkeys.map((p) => p.id),
    });
  })
  .post('/passkeys', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const rp = rpOf(c);
    if (!rp) return noOrigin(c);
    const ref = await sessionRef(checked.sessionId);
    const name = (checked.form.name ?? '').trim();
    const errors: Errors = {};
    if (name === '' || name.length > NAME_MAX) errors.name = name === '' ? 'Name the passkey' : `Use at most ${NAME_MAX} characters`;
    let registration = null;
    if (!errors.name) {
      try {
        registration = verifyRegistration(checked.form.credential ?? '', rp);
      } catch (error) {
        if (!(error instanceof PasskeyError)) throw error;
        errors.name = checked.form.credential ? 'Your device did not make a passkey this dashboard can use. Try again.' : 'Adding a passkey needs JavaScript and a browser with passkeys.';
      }
    }
    if (!registration) return render(c, checked.sessionId, await passkeysPage(sessionDb(c), ref), { name, errors }, 400);
    const result = await registerPasskey(sessionDb(c), ref, c.get('client'), sealer(checked.sessionId), { registration, name });
    if (!result.registered) return render(c, checked.sessionId, result, { name, errors: { name: 'That request has expired or was already used. Try again.' } }, 400);
    return changed(c, '/passkeys');
  })
  .post('/passkeys/:id/rename', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const credentialId = c.req.param('id');
    const name = (checked.form.name ?? '').trim();
    if (!CREDENTIAL_ID.test(credentialId)) return c.text('Not found', 404);
    const ref = await sessionRef(checked.sessionId);
    if (name === '' || name.length > NAME_MAX) return render(c, checked.sessionId, await passkeysPage(sessionDb(c), ref), { errors: { name: `Give the passkey a name of 1 to ${NAME_MAX} characters` } }, 400);
    await renamePasskey(sessionDb(c), ref, c.get('client'), sealer(checked.sessionId), { credentialId, name });
    return changed(c, '/passkeys');
  })
  .post('/passkeys/:id/remove', async (c) => {
    const checked = await signedInForm(c);
    if (checked instanceof Response) return checked;
    const credentialId = c.req.param('id');
    if (!CREDENTIAL_ID.test(credentialId)) return c.text('Not found', 404);
    await removePasskey(sessionDb(c), await sessionRef(checked.sessionId), c.get('client'), sealer(checked.sessionId), credentialId);
    return changed(c, '/passkeys');
  })
  // Sign-in: the options of navigator.credentials.get (no account named: a discoverable credential).
  .post('/sign-in/passkey/options', async (c) => {
    const rp = rpOf(c);
    if (!rp) return noOrigin(c);
    // Each asks for a stored challenge: counted per client address, as asking for a link is.
    const limit = await c.env.SIGNIN_ADDRESS_LIMITER.limit({ key: addressKey(c.get('client').address) });
    if (!limit.success) return c.json({ error: 'Too many sign-in requests. Wait a minute, then try again.' }, 429, { 'Retry-After': '60' });
    const challenge = newChallenge();
    await signInChallenge(readDatabases(c.env), challenge, Date.now());
    return c.json({ challenge, rpId: rp.id });
  })
  .post('/sign-in/passkey', async (c) => {
    const rp = rpOf(c);
    if (!rp) return noOrigin(c);
    const form = await formFields(c);
    let signedIn = null;
    try {
      const assertion = readAssertion(form?.credential ?? '', rp);
      signedIn = await passkeySignIn(readDatabases(c.env), { assertion, now: Date.now(), client: c.get('client') });
    } catch (error) {
      if (!(error instanceof PasskeyError)) throw error;
    }
    if (!signedIn) {
      return c.html(
        <Page title="Sign in">
          <Notice>That passkey did not sign you in (it may have been removed, or the request expired). Try again, or ask for an e-mailed link.</Notice>
          <p>
            <a href={`${BASE}/sign-in`}>Back to sign-in</a>
          </p>
        </Page>,
        400,
      );
    }
    c.header('Set-Cookie', sessionCookie(signedIn.sessionId));
    return c.redirect(`${BASE}/keys`, 303);
  });
