// The Developers section in a real browser (run by scripts/docs-browser-check.ts against the same
// `npm start`): sign up by e-mailed link (read from where npm start says e-mails go), create a
// key and call the API with it from Node, roll and revoke it (the API refuses the old one), add a
// webhook endpoint on a loopback receiver and verify the signed delivery with `standardwebhooks`,
// resend it, rotate its secret (the next delivery verifies with the new secret, not the old),
// disable and enable it, read the events and the audit log, sign out everywhere (a second
// browser's session ends too). axe-core runs on every page
// (no serious or critical violation); every page is checked at 375 px wide (no sideways scroll of
// the page) and screenshotted to .out/; the sign-in form is used with the keyboard alone. Forms
// behave: a reload after a change repeats nothing; revoke and delete ask first; no page asks for
// /favicon.ico; key names and prefixes stay on one line at 390 px. Teams: the owner invites a
// colleague as viewer, who joins from the link npm start prints, sees the keys and cannot make one
// (the server refuses a forged form: 403), and is made a developer. Passkeys: with Chromium's
// virtual authenticator (CDP's WebAuthn domain), the colleague registers a passkey, signs out, and
// signs back in with the passkey alone. The browser opens the dashboard on http://localhost (the
// hostname of PUBLIC_ORIGIN, the passkeys' RP id: WebAuthn refuses an IP address).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { readSignInEmails, SIGN_IN_EMAILS } from './sign-in-emails.ts';
import type { RunningService } from './service.ts';
import { startReceiver } from './webhook-receiver.ts';
import { DEFAULT_CONFIG } from '../../src/env.ts';

type Check = (label: string, condition: boolean, detail?: string) => boolean;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core on the page as it is: its serious and critical violations. */
export async function axe(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as { violations: AxeViolation[] };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

async function waitFor<T>(read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function checkDashboard(context: BrowserContext, service: RunningService, check: Check, screenshots: string): Promise<string> {
  // The browser's pages on localhost, as npm start prints them (PUBLIC_ORIGIN); Node's own calls on
  // 127.0.0.1, where wrangler listens (Node may resolve localhost to ::1).
  const base = service.base.replace('//127.0.0.1:', '//localhost:');
  const receiver = await startReceiver();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // A form sent back with its errors is a 400 page on purpose, which Chromium also reports as a
  // console error; what must not fail is anything the pages load (stylesheet, script).
  page.on('console', (message) => {
    if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  page.on('response', (response) => {
    if (response.request().resourceType() !== 'document' && response.status() >= 400) problems.push(`${response.status()} for ${response.url()}`);
  });
  const favicons: string[] = [];
  context.on('request', (request) => {
    if (new URL(request.url()).pathname === '/favicon.ico') favicons.push(request.url());
  });
  const api = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${service.base}${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
  const pagesChecked: string[] = [];
  let firstKeySeconds = NaN;

  /** axe, the 375 px layout and a screenshot of the page as it is now. */
  const inspect = async (name: string) => {
    const violations = await axe(page);
    check(`axe: no serious or critical violations on ${name}`, violations.length === 0, violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${JSON.stringify(v.nodes.map((n) => n.target))})`).join('\n'));
    const wide = page.viewportSize();
    await page.setViewportSize({ width: 375, height: 800 });
    const overflow = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    check(`${name} fits a 375 px wide screen (the page does not scroll sideways)`, overflow <= 375, `scrollWidth ${overflow}`);
    await page.screenshot({ path: `${screenshots}/dashboard-${name}-375.png`, fullPage: true, animations: 'disabled' });
    if (wide) await page.setViewportSize(wide);
    await page.screenshot({ path: `${screenshots}/dashboard-${name}.png`, fullPage: true, animations: 'disabled' });
    pagesChecked.push(name);
  };

  try {
    // Where npm start says the sign-in e-mails go.
    const emailDir = /sign-in e-mail is saved\s+under (\S+?)\/?,/.exec(service.output())?.[1];
    check(`npm start says where sign-in e-mails go (${SIGN_IN_EMAILS})`, emailDir === SIGN_IN_EMAILS, service.output().slice(-800));

    // Sign-in, by keyboard only: Tab to the address, type it, Tab to the button, Enter.
    const started = Date.now();
    await page.goto(`${base}/dashboard`);
    check('/dashboard sends a signed-out browser to sign-in', page.url() === `${base}/dashboard/sign-in`, page.url());
    await inspect('sign-in');
    const email = `browser-${Date.now()}@example.com`;
    let reached = '';
    for (let i = 0; i < 5 && reached !== 'email'; i++) {
      await page.keyboard.press('Tab');
      reached = (await page.evaluate('document.activeElement && document.activeElement.id')) as string;
    }
    check('Tab reaches the e-mail field', reached === 'email');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    const onButton = (await page.evaluate('document.activeElement && document.activeElement.textContent')) as string;
    check('Tab then reaches the sign-in button', /E-mail me a sign-in link/.test(onButton ?? ''), onButton);
    await page.keyboard.press('Enter');
    const sent = await page
      .getByRole('heading', { name: 'Check your e-mail' })
      .waitFor({ timeout: 15_000 })
      .then(
        () => true,
        () => false,
      );
    if (!check('the sign-in form, sent by keyboard, answers "Check your e-mail"', sent, await page.locator('body').innerText())) throw new Error('sign-in failed');
    await inspect('check-email');

    const mail = await waitFor(
      () => readSignInEmails(SIGN_IN_EMAILS).filter((e) => e.to === email),
      (list) => list.length > 0,
    );
    const link = mail.at(-1)?.link;
    check(`the sign-in e-mail to ${email} is in ${SIGN_IN_EMAILS}`, link !== undefined);
    const printed = await waitFor(() => service.output(), (out) => out.includes(`Sign-in e-mail to ${email}: `), 5000);
    check('npm start printed the sign-in link', link !== undefined && printed.includes(`Sign-in e-mail to ${email}: ${link}`));
    await page.goto(link!);
    check('the sign-in confirmation page names the address and the account it signs into', (await page.locator('main').innerText()).includes(`Sign in to a new account as ${email}`));
    await inspect('sign-in-confirm');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    const cookie = (await context.cookies(base)).find((c) => c.name === '__Host-session');
    check(
      'Chromium keeps the __Host-session cookie on http://127.0.0.1 (a secure context): Secure, HttpOnly, SameSite=Lax, Path=/',
      cookie !== undefined && cookie.secure && cookie.httpOnly && cookie.sameSite === 'Lax' && cookie.path === '/',
      JSON.stringify(cookie),
    );
    await inspect('keys-empty');

    // A bad submission keeps what was typed.
    await page.getByLabel('Expires on (optional)').fill('2001-01-01');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('alert').waitFor();
    check('a bad key form shows its errors and keeps the date typed', (await page.getByLabel('Expires on (optional)').inputValue()) === '2001-01-01');
    await inspect('keys-errors');

    // Create a key; the API takes it at once.
    await page.getByLabel('Name', { exact: true }).fill('browser');
    await page.getByLabel('Expires on (optional)').fill('');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').innerText()).trim();
    check('the new key is shown once', /^scn_[0-9A-Za-z]{36}$/.test(key), key);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: /Copied|Select and copy it/ }).waitFor();
    check('the copy button answers', true);
    check('the key works on the API at once (GET /me from Node → 200)', (await api(key, '/me')).status === 200);
    // Axe, the screenshots and the bad submission above are part of this time, a person's reading is not.
    firstKeySeconds = (Date.now() - started) / 1000;
    check(`from /dashboard to a working key in under a minute (${firstKeySeconds.toFixed(1)} s)`, firstKeySeconds < 60);
    await page.evaluate(`(() => { const c = document.getElementById('new-key'); c.textContent = c.textContent.slice(0, 10) + '…'; })()`);
    await inspect('keys-created');
    // A reload after the change (its 303) asks for the page again: no second key, the key not shown again.
    const rows = await page.locator('tbody tr').count();
    await page.reload();
    check('a reload after "Create key" makes no second key and shows the key no more', (await page.locator('tbody tr').count()) === rows && (await page.locator('#new-key').count()) === 0);
    check('the dashboard links to the API reference (/docs)', (await page.getByRole('link', { name: 'API reference' }).getAttribute('href')) === '/docs');
    // At 390 px the keys table scrolls inside its region; a name or a key prefix never breaks mid-token.
    await page.setViewportSize({ width: 390, height: 800 });
    const broken = (await page.evaluate(`[...document.querySelectorAll('td.token')].filter((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
    }).map((td) => td.textContent)`)) as string[];
    check('at 390 px no key name or prefix breaks mid-token', broken.length === 0, broken.join(', '));
    await page.screenshot({ path: `${screenshots}/dashboard-keys-390.png`, fullPage: true, animations: 'disabled' });
    await page.setViewportSize({ width: 1280, height: 800 });

    // Roll with no grace: a new key; the old one is refused.
    await page.getByLabel('Old key stops').first().selectOption('0');
    await page.getByRole('button', { name: 'Roll browser' }).first().click();
    const rolled = (await page.locator('#new-key').innerText()).trim();
    check('roll shows a new key', /^scn_/.test(rolled) && rolled !== key);
    check('after the roll ("now") the API refuses the old key (401) and takes the new one (200)', (await api(key, '/me')).status === 401 && (await api(rolled, '/me')).status === 200);
    const banner = await page.locator('.once').innerText();
    check('the roll banner tells the truth: the new key does not expire, the old one no longer works', banner.includes('It does not expire.') && banner.includes('The old key no longer works.'), banner);
    // Revoke the new one, after its confirmation page: refused from the next request.
    await page.getByRole('link', { name: 'Revoke browser…' }).first().click();
    await page.getByRole('heading', { name: 'Revoke this key?' }).waitFor();
    check('revoke asks first (the key still works on its confirmation page)', (await api(rolled, '/me')).status === 200);
    await inspect('keys-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke the key' }).click();
    await page.getByText('is revoked').waitFor();
    check('after revoke the API refuses the key (401)', (await api(rolled, '/me')).status === 401);
    await page.reload();
    check('a reload after "Revoke" repeats nothing (no notice again)', (await page.getByText('is revoked').count()) === 0);

    // A key for the webhook flow.
    await page.getByLabel('Name', { exact: true }).fill('hooks');
    await page.getByRole('button', { name: 'Create key' }).click();
    const hookKey = (await page.locator('#new-key').innerText()).trim();

    // Webhooks: add an endpoint on the loopback receiver; the next event arrives signed.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    // The new page, before axe runs (axe on a page mid-navigation finds no document).
    await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    await inspect('webhooks-empty');
    const hookName = `browser${Date.now()}`;
    await page.getByLabel('URL').fill(`${receiver.url}/hook/${hookName}`);
    await page.getByLabel('Description (optional)').fill('browser check');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.locator('#new-secret').innerText()).trim();
    check('the endpoint secret is shown once', secret.startsWith('whsec_'));
    await page.evaluate(`(() => { const c = document.getElementById('new-secret'); c.textContent = c.textContent.slice(0, 10) + '…'; })()`);
    await inspect('webhooks-created');
    const scenario = {
      scenarioData: {
        year: 2026,
        state_id: 36,
        programs: ['snap'],
        adult: [{ age: 34, wage_rate: '18.50', yes_or_no: 1, adult_type: 1, is_married: 0, is_veteran: 0, unemp_comp: '0', monthly_ssi: '0', child_support: '0', other_unearned: '0', monthly_disability: '0', soc_sec_retirement: '0', same_snap_household: 1, work_hours_per_week: '40', is_spouse_in_household: 0, same_legal_hh_fed_state: 1, training_hours_per_week: '0', aged_or_disability_income: 0 }],
      },
    };
    check('a scenario created with the dashboard key → 201', (await api(hookKey, '/scenarios', { method: 'POST', body: JSON.stringify(scenario) })).status === 201);
    const deliveries = await waitFor(() => receiver.received(hookName), (list) => list.length >= 1);
    let eventId = '';
    try {
      eventId = (new Webhook(secret).verify(deliveries[0]!.body, deliveries[0]!.headers) as { id: string }).id;
    } catch {
      // eventId stays empty: the check below fails
    }
    check('the endpoint received the event, signed (verified by standardwebhooks)', eventId.startsWith('evt_'), JSON.stringify(deliveries[0]?.headers));

    // Its delivery log, and resend.
    await page.getByRole('link', { name: new RegExp(hookName) }).click();
    await waitFor(
      async () => {
        await page.reload();
        return page.getByText('HTTP 204').count();
      },
      (n) => n > 0,
    );
    await inspect('webhook-endpoint');
    await page.getByRole('button', { name: `Resend ${eventId}` }).click();
    await page.getByText('is queued for delivery again').waitFor();
    const again = await waitFor(() => receiver.received(hookName), (list) => list.length >= 2);
    // The page says "reload in a few seconds": that reload must not send the event again.
    await page.reload();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    check('a reload after "Resend" sends nothing more', (await receiver.received(hookName)).length === 2, String((await receiver.received(hookName)).length));
    check('resend delivers the event again, signed, with the same webhook-id', again.length >= 2 && again[1]!.headers['webhook-id'] === eventId && (() => {
      try {
        new Webhook(secret).verify(again[1]!.body, again[1]!.headers);
        return true;
      } catch {
        return false;
      }
    })());

    // Rotate the secret, the old one stopping at once: the next delivery verifies with the new
    // secret and not with the old.
    await page.getByLabel('The old secret').selectOption('0');
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    const rotated = (await page.locator('#new-secret').innerText()).trim();
    check('rotation shows a new secret once', rotated.startsWith('whsec_') && rotated !== secret);
    await page.evaluate(`(() => { const c = document.getElementById('new-secret'); c.textContent = c.textContent.slice(0, 10) + '…'; })()`);
    await inspect('webhook-rotated');
    check('a second scenario → 201', (await api(hookKey, '/scenarios', { method: 'POST', body: JSON.stringify(scenario) })).status === 201);
    const third = await waitFor(() => receiver.received(hookName), (list) => list.length >= 3);
    const verifies = (with_: string) => {
      try {
        new Webhook(with_).verify(third[2]!.body, third[2]!.headers);
        return true;
      } catch {
        return false;
      }
    };
    check('after the rotation the next delivery verifies with the new secret, not the old one', third.length >= 3 && verifies(rotated) && !verifies(secret));

    // Disable, then enable: the API sees each at once.
    const status = async () => ((await (await api(hookKey, '/webhook_endpoints')).json()) as { data: { status: string }[] }).data[0]?.status;
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Disabled: nothing is delivered to it until').waitFor();
    check('disable applies to the API at once (status disabled)', (await status()) === 'disabled');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Enabled: events from now on').waitFor();
    check('enable applies to the API at once (status enabled)', (await status()) === 'enabled');
    // Delete asks first; cancelled, the endpoint stays.
    await page.getByRole('link', { name: 'Delete this endpoint…' }).click();
    await page.getByRole('heading', { name: 'Delete this endpoint?' }).waitFor();
    await inspect('webhook-delete-confirm');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    check('a cancelled delete keeps the endpoint', (await status()) === 'enabled');

    // Events, filtered by type.
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByLabel('Type').selectOption('scenario.created');
    await page.getByRole('button', { name: 'Show' }).click();
    check('the events page lists the event, filtered by type', (await page.getByText(eventId).count()) === 1 && page.url().includes('type=scenario.created'));
    await inspect('events');

    // Account, audit log.
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    const accountText = await page.locator('main').innerText();
    check('the account page shows the e-mail and the quota', accountText.includes(email) && accountText.includes(`2 of ${DEFAULT_CONFIG.accountMaxScenarios.toLocaleString('en-US')} scenarios stored`), accountText);
    await inspect('account');
    await page.getByRole('link', { name: 'Audit log' }).click();
    const audit = await page.locator('main').innerText();
    const actions = [
      'Signed in',
      'Created an API key',
      'Rolled an API key',
      'Revoked an API key',
      'Added a webhook endpoint',
      'Resent an event',
      "Rotated a webhook endpoint's secret",
      'Disabled a webhook endpoint',
      'Enabled a webhook endpoint',
    ];
    check('the audit log lists every sign-in and change', actions.every((a) => audit.includes(a)), audit.slice(0, 800));
    check('the audit log names the key the same way on create, roll and revoke', (audit.match(/browser \(scn_/g) ?? []).length >= 3, audit.slice(0, 800));
    await inspect('audit');

    // Teams: invite a colleague as viewer; they join from the link npm start prints.
    await page.getByRole('link', { name: 'Members' }).click();
    await inspect('members');
    const colleagueEmail = `colleague-${Date.now()}@example.com`;
    await page.getByLabel('E-mail address').fill(colleagueEmail);
    await page.getByLabel(/^Viewer/).check();
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await page.getByText(`Invitation sent to ${colleagueEmail}`).waitFor();
    await inspect('members-invited');
    const invitation = await waitFor(
      () => readSignInEmails(SIGN_IN_EMAILS).filter((e) => e.to === colleagueEmail),
      (list) => list.length > 0,
    );
    const invitationLink = invitation.at(-1)?.link ?? '';
    const printedInvitation = await waitFor(() => service.output(), (out) => out.includes(`Invitation e-mail to ${colleagueEmail}: `), 5000);
    check('npm start printed the invitation link', invitationLink !== '' && printedInvitation.includes(`Invitation e-mail to ${colleagueEmail}: ${invitationLink}`));
    const colleagueContext = await context.browser()!.newContext();
    const colleague = await colleagueContext.newPage();
    await colleague.goto(invitationLink);
    check('the invitation page names the account and the role', /to the account .+ as a viewer/.test(await colleague.locator('main').innerText()));
    const axeOn = async (other: Page, name: string) => {
      const violations = await axe(other);
      check(`axe: no serious or critical violations on ${name}`, violations.length === 0, violations.map((v) => `${v.impact} ${v.id}: ${v.help}`).join('\n'));
      await other.screenshot({ path: `${screenshots}/dashboard-${name}.png`, fullPage: true, animations: 'disabled' });
      pagesChecked.push(name);
    };
    await axeOn(colleague, 'invitation');
    await colleague.getByRole('button', { name: /^Join / }).click();
    await colleague.getByRole('heading', { name: 'API keys' }).waitFor();
    const viewerKeys = await colleague.locator('main').innerText();
    check('the viewer sees the keys and no way to create one', viewerKeys.includes('hooks') && (await colleague.getByRole('button', { name: 'Create key' }).count()) === 0, viewerKeys.slice(0, 400));
    await axeOn(colleague, 'keys-viewer');
    // A forged form: the page's own token, a form the page never offered, sent as a browser sends it.
    const keyRows = await colleague.locator('tbody tr').count();
    const [forgedReply] = await Promise.all([
      colleague.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/dashboard/keys')),
      colleague.evaluate(`(() => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = '/dashboard/keys';
        for (const [name, value] of [['_token', document.querySelector('input[name=_token]').value], ['name', 'forged'], ['scope', 'read_write']]) {
          const input = document.createElement('input');
          input.type = 'hidden';
          input.name = name;
          input.value = value;
          form.appendChild(input);
        }
        document.body.appendChild(form);
        form.submit();
      })()`),
    ]);
    const forged = forgedReply.status();
    // The refusal page loads before the keys page is asked for again.
    await colleague.getByRole('heading', { name: 'Refused' }).waitFor();
    await colleague.goto(`${base}/dashboard/keys`);
    await colleague.reload();
    check('the server refuses a viewer\'s forged "Create key" (403) and makes no key', forged === 403 && (await colleague.locator('tbody tr').count()) === keyRows, String(forged));
    // The owner makes them a developer: they can make keys from their next page.
    await page.reload();
    await page.locator('select[id^="role-"]').last().selectOption('developer');
    await page.getByRole('button', { name: `Change the role of ${colleagueEmail}` }).click();
    await page.getByText(`${colleagueEmail} is now a developer`).waitFor();
    await page.reload();
    check('a reload after the role change repeats nothing', (await page.getByText('is now a developer').count()) === 0);
    await colleague.reload();
    check('made a developer, the colleague may create keys', (await colleague.getByRole('button', { name: 'Create key' }).count()) === 1);
    await colleague.getByLabel('Name', { exact: true }).fill('colleague key');
    await colleague.getByRole('button', { name: 'Create key' }).click();
    const colleagueKey = (await colleague.locator('#new-key').innerText()).trim();
    check("the developer's key works, and the keys table names who made it", (await api(colleagueKey, '/me')).status === 200 && (await colleague.locator('main').innerText()).includes(colleagueEmail));
    // Passkeys: the developer registers one with Chromium's virtual authenticator, signs out, and
    // signs back in with the passkey alone (no e-mail typed).
    const colleagueErrors: string[] = [];
    colleague.on('console', (message) => {
      if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) colleagueErrors.push(message.text());
    });
    const cdp = await colleagueContext.newCDPSession(colleague);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    await colleague.getByRole('link', { name: 'Passkeys', exact: true }).click();
    await colleague.getByRole('heading', { name: 'Passkeys', exact: true }).waitFor();
    await axeOn(colleague, 'passkeys-none');
    await colleague.getByLabel('Name', { exact: true }).fill('Virtual authenticator');
    await colleague.getByRole('button', { name: 'Add a passkey' }).click();
    const added = await colleague
      .getByText('Passkey "Virtual authenticator" added')
      .waitFor({ timeout: 15_000 })
      .then(
        () => true,
        () => false,
      );
    check('a developer registers a passkey in Chromium (virtual authenticator)', added, `${(await colleague.locator('main').innerText()).slice(0, 600)}\n${colleagueErrors.join('\n')}`);
    await axeOn(colleague, 'passkeys');
    await colleague.reload();
    check('a reload after adding a passkey repeats nothing', (await colleague.getByText('added.').count()) === 0 && (await colleague.locator('tbody tr').count()) === 1);
    await colleague.getByRole('button', { name: 'Sign out' }).click();
    await colleague.getByText('You are signed out.').waitFor();
    await axeOn(colleague, 'sign-in-signed-out');
    await colleague.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const back = await colleague
      .getByRole('heading', { name: 'API keys' })
      .waitFor({ timeout: 15_000 })
      .then(
        () => true,
        () => false,
      );
    check('signed out, the developer signs back in with the passkey alone', back && (await colleague.locator('.who').innerText()).includes(colleagueEmail), `${(await colleague.locator('body').innerText()).slice(0, 600)}\n${colleagueErrors.join('\n')}`);
    check('no script errors on the passkey pages', colleagueErrors.length === 0, colleagueErrors.join('\n'));
    const removeLink = page.getByRole('link', { name: `Remove ${colleagueEmail}…` });
    await removeLink.click();
    await page.getByRole('heading', { name: 'Remove this member?' }).waitFor();
    await inspect('member-remove-confirm');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    await page.getByRole('link', { name: 'Switch account' }).click();
    await page.getByRole('heading', { name: 'Your accounts' }).waitFor();
    await inspect('accounts');
    await colleagueContext.close();

    // A second browser signed in as the same person, to see "sign out everywhere" end its session too.
    const other = await context.browser()!.newContext();
    const otherPage = await other.newPage();
    await otherPage.goto(`${base}/dashboard/sign-in`);
    await otherPage.getByLabel('E-mail address').fill(email);
    await otherPage.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
    await otherPage.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
    const second = await waitFor(
      () => readSignInEmails(SIGN_IN_EMAILS).filter((e) => e.to === email),
      (list) => list.length >= 2,
    );
    await otherPage.goto(second.at(-1)!.link);
    await otherPage.getByRole('button', { name: 'Sign in' }).click();
    await otherPage.getByRole('heading', { name: 'API keys' }).waitFor();

    // Sign out everywhere: both sessions end.
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByText('You are signed out.').waitFor();
    await page.goto(`${base}/dashboard/keys`);
    check('after "sign out everywhere" the dashboard asks to sign in again', page.url() === `${base}/dashboard/sign-in`, page.url());
    await otherPage.goto(`${base}/dashboard/keys`);
    check("and so does the other browser's session", otherPage.url() === `${base}/dashboard/sign-in`, otherPage.url());
    await other.close();
    check('no script errors on the dashboard', problems.length === 0, problems.join('\n'));
    check('no page asked for /favicon.ico', favicons.length === 0, favicons.join('\n'));
  } finally {
    await page.close();
    receiver.server.close();
  }
  return `dashboard: signed up and called the API with a new key ${firstKeySeconds.toFixed(1)} s after opening /dashboard; ${pagesChecked.length} page states checked with axe and at 375 px (${pagesChecked.join(', ')})`;
}
