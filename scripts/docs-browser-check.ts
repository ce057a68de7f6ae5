// npm run test:browser: the /docs page in a real browser. Starts `npm start` on a spare port,
// opens /docs in headless Chromium (Debian's `chromium`, driven by playwright-core), checks that
// Swagger UI lists every operation of /openapi.json, that nothing was fetched from any host but
// the service itself (no CDN: the page works offline), and that "Try it out" works as a user
// would drive it, with the printed development key: GET /me, then list, create (twice, two
// scenarios: no replay), list with filters and export (JSON Lines and CSV) chosen from their
// drop-downs, view, save and delete, each with only what a user must type (the token) or choose
// added to what Swagger UI fills in from the document.
//
// Saves a screenshot to .out/docs-screenshot.png (git-ignored); `npm run test:browser --
// --update-screenshot` writes the committed docs/docs-screenshot.png instead.
//
// First the Developers section (/dashboard), every flow end to end with axe-core on every page:
// scripts/lib/dashboard-browser-check.ts (screenshots in .out/dashboard-*.png; with
// --update-screenshot the keys page also goes to docs/dashboard-screenshot.png).
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { checkDashboard } from './lib/dashboard-browser-check.ts';
import { checkSharePage } from './lib/share-link-browser-check.ts';
import { checklist, startService, type RunningService } from './lib/service.ts';

const PORT = process.env.DOCS_CHECK_PORT ?? '8796';
const HOST = '127.0.0.1';
const base = `http://${HOST}:${PORT}`;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = process.argv.includes('--update-screenshot') ? 'docs/docs-screenshot.png' : '.out/docs-screenshot.png';
const OVERALL_TIMEOUT_MS = 360_000;
const DEV_EMAIL = 'dev@example.com';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** Operations the page must list (more may exist; every one in /openapi.json is checked too). */
const EXPECTED = [
  'GET /me',
  'GET /scenarios',
  'GET /scenarios/export',
  'POST /scenarios',
  'GET /scenarios/{token}',
  'POST /scenarios/save',
  'PUT /scenarios/save',
  'DELETE /scenarios/{token}/delete',
  'PATCH /scenarios/{token}',
  'POST /scenarios/{token}/share_links',
  'GET /scenarios/{token}/share_links',
  'DELETE /scenarios/{token}/share_links/{id}',
  'GET /shared/{secret}',
  'GET /scenarios/{token}/revisions',
  'GET /scenarios/{token}/revisions/{version}',
  'POST /scenarios/{token}/revisions/{version}/restore',
  'GET /scenarios/{token}/diff',
  'POST /admin/accounts',
  'POST /admin/accounts/{id}/keys',
  'GET /admin/accounts/{id}/keys',
  'DELETE /admin/keys/{id}',
];

let browser: Browser | undefined;
let service: RunningService | undefined;
const checks = checklist();
const { check } = checks;

// Never hang: whatever is stuck, stop the server and fail after OVERALL_TIMEOUT_MS.
const watchdog = setTimeout(() => {
  check(`the browser check finished within ${OVERALL_TIMEOUT_MS / 1000} s`, false);
  service?.kill();
  void browser?.close().catch(() => {});
  console.log(checks.summary());
  process.exit(1);
}, OVERALL_TIMEOUT_MS);

/** The block of one operation on the page. */
function operation(page: Page, method: string, path: string): Locator {
  return page.locator(`.opblock.opblock-${method.toLowerCase()}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
}

/**
 * Opens an operation, clicks Try it out, lets `edit` type what a user must (nothing else is
 * changed from what Swagger UI filled in), clicks Execute, and returns the status and body shown.
 */
async function tryItOut(page: Page, method: string, path: string, edit?: (block: Locator) => Promise<void>) {
  const block = operation(page, method, path);
  if (!(await block.locator('.opblock-body').isVisible())) await block.locator('.opblock-summary').first().click();
  const tryIt = block.locator('button.try-out__btn', { hasText: 'Try it out' });
  if (await tryIt.isVisible()) await tryIt.click();
  if (edit) await edit(block);
  // A second try: clear the last reply first, so the one read below is the new one.
  const clear = block.locator('button.btn-clear');
  if (await clear.isVisible()) {
    await clear.click();
    await block.locator('.live-responses-table').waitFor({ state: 'detached' });
  }
  await block.locator('button.execute').click();
  const live = block.locator('.live-responses-table .response').first();
  await live.waitFor({ state: 'visible' });
  const status = (await live.locator('.response-col_status').innerText()).trim();
  // A reply sent as a file (Content-Disposition: attachment, the export) is offered as a download
  // link, as a browser would save it: its file name, and its text read from the link.
  const download = block.locator('.live-responses-table .response-col_description a[download]');
  if ((await download.count()) > 0) {
    // Clicked, as a person would: the browser saves it (the page's CSP lets no script read it).
    const [saved] = await Promise.all([page.waitForEvent('download'), download.first().click()]);
    const body = readFileSync(await saved.path(), 'utf8');
    return { status, body, filename: saved.suggestedFilename() };
  }
  const body = await block
    .locator('.live-responses-table .response-col_description .highlight-code, .live-responses-table .response-col_description pre')
    .first()
    .innerText();
  return { status, body, filename: undefined as string | undefined };
}

/** The scenario token in a shown create/view/save reply. */
const tokenIn = (body: string) => /"token":\s*"([1-9][0-9]{14})"/.exec(body)?.[1];

let summary = '';
try {
  service = await startService(PORT);
  const { key } = service;

  // The operations the document defines, to compare with what the page shows.
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);
  const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => METHODS.has(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );

  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(30_000);

  // Every request the page makes, from any frame or worker; anything not for the service is
  // refused (as it would be offline) and reported.
  const external: string[] = [];
  let requests = 0;
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.host === `${HOST}:${PORT}` || url.host === `localhost:${PORT}`) return route.continue();
    external.push(route.request().url());
    return route.abort('blockedbyclient');
  });
  context.on('request', (request) => {
    requests++;
    const url = new URL(request.url());
    if (!['data:', 'blob:'].includes(url.protocol) && url.host !== `${HOST}:${PORT}` && url.host !== `localhost:${PORT}` && !external.includes(request.url())) {
      external.push(request.url());
    }
  });

  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    problems.push(`console error: ${message.text()}`);
    // The page's CSP stops third-party loads before they become requests; count those attempts too.
    if (/Content Security Policy/.test(message.text())) {
      for (const [match] of message.text().matchAll(/(?:https?|wss?):\/\/[^\s'"]+/g)) {
        const url = match.replace(/[.,;:)]+$/, '');
        if (![`${HOST}:${PORT}`, `localhost:${PORT}`].includes(new URL(url).host) && !external.includes(url)) external.push(url);
      }
    }
  });
  const failedLoads: string[] = [];
  page.on('requestfailed', (request) => failedLoads.push(`${request.url()} (${request.failure()?.errorText})`));

  mkdirSync('.out', { recursive: true });
  const dashboardSummary = await checkDashboard(context, service, check, '.out');
  if (process.argv.includes('--update-screenshot')) copyFileSync('.out/dashboard-keys-created.png', 'docs/dashboard-screenshot.png');

  const response = await page.goto(`${base}/docs`, { waitUntil: 'load' });
  check('GET /docs → 200 HTML', response?.status() === 200 && /text\/html/.test(response.headers()['content-type'] ?? ''));

  // Swagger UI fetched /openapi.json and rendered one block per operation.
  await page.locator('.opblock').first().waitFor({ state: 'visible' });
  await page.locator('.information-container .title').waitFor({ state: 'visible' });
  const blocks = page.locator('.opblock');
  const listed: string[] = [];
  for (let i = 0; i < (await blocks.count()); i++) {
    const block = blocks.nth(i);
    const method = (await block.locator('.opblock-summary-method').first().innerText()).trim().toUpperCase();
    const path = await block.locator('.opblock-summary-path').first().getAttribute('data-path');
    listed.push(`${method} ${path}`);
  }
  const title = (await page.locator('.information-container .title').innerText()).trim();
  check('the page shows the API title from /openapi.json', title.startsWith('Scenario Service'), `title: ${title}`);
  const missing = EXPECTED.filter((op) => !listed.includes(op));
  check(`the expected ${EXPECTED.length} operations are listed`, missing.length === 0, `missing: ${missing.join(', ')}\nlisted: ${listed.join(', ')}`);
  const undocumented = documented.filter((op) => !listed.includes(op));
  check(
    `every operation in /openapi.json is listed (${documented.length})`,
    undocumented.length === 0 && listed.length === documented.length,
    `not listed: ${undocumented.join(', ')}\nlisted: ${listed.join(', ')}`,
  );
  // Styled by swagger-ui.css: the GET badge is Swagger UI's blue (#61affe), not unstyled text.
  const badge = await page.evaluate(`getComputedStyle(document.querySelector('.opblock-get .opblock-summary-method')).backgroundColor`);
  check('the Swagger UI stylesheet applied', badge === 'rgb(97, 175, 254)', `GET badge background: ${String(badge)}`);

  // Authorize with the development key (the ApiKey scheme).
  await page.locator('.scheme-container button.authorize').click();
  const apiKeyAuth = page.locator('.modal-ux .auth-container').filter({ hasText: 'ApiKey' });
  await apiKeyAuth.locator('input').fill(key);
  await apiKeyAuth.locator('button.authorize').click();
  await apiKeyAuth.getByText('Authorized').waitFor({ state: 'visible' });
  await page.locator('.modal-ux button.btn-done').first().click();
  await page.locator('.modal-ux').waitFor({ state: 'detached' });
  check('Authorize accepts the development key', (await page.locator('.scheme-container button.authorize.locked').count()) === 1);

  // Try it out → Execute on GET /me.
  const { status, body } = await tryItOut(page, 'GET', '/me');
  check('Try it out: GET /me → 200 with the dev account', status === '200' && body.includes(DEV_EMAIL), `status: ${status}\nbody: ${body.slice(0, 500)}`);

  // The screenshot shows the try-it result; the key in the curl line is shortened first so
  // that the committed image never carries a working key.
  await page.evaluate(`(() => {
    const key = ${JSON.stringify(key)};
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeValue.includes(key)) node.nodeValue = node.nodeValue.replaceAll(key, key.slice(0, 4) + '…');
    }
  })()`);
  const text = await page.locator('body').innerText();
  check('the key is not shown on the page before the screenshot', !text.includes(key) && text.includes('Bearer scn_…'));
  mkdirSync(dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true, animations: 'disabled' });
  check(`screenshot saved to ${SCREENSHOT}`, true);

  // Try it out on the scenario routes, as a user drives it: only the token is typed in.
  const shown = (label: string, reply: { status: string; body: string }, expected: string) =>
    check(`Try it out: ${label} → ${expected}`, reply.status === expected, `status: ${reply.status}\nbody: ${reply.body.slice(0, 500)}`);
  shown('GET /scenarios (list, nothing typed)', await tryItOut(page, 'GET', '/scenarios'), '200');
  const created = await tryItOut(page, 'POST', '/scenarios');
  shown('POST /scenarios (create, the example body)', created, '201');
  const again = await tryItOut(page, 'POST', '/scenarios');
  shown('POST /scenarios again', again, '201');
  const token = tokenIn(created.body);
  check('the two creates made two scenarios (no Idempotency-Key filled in, so no replay)', token !== undefined && tokenIn(again.body) !== token, `tokens: ${token}, ${tokenIn(again.body)}`);
  // Filters and export: values chosen from the drop-downs the document's enums give.
  const choose = (choices: Record<string, string>) => async (block: Locator) => {
    for (const [name, value] of Object.entries(choices)) await block.locator(`tr[data-param-name="${name}"] select`).selectOption(value);
  };
  const filteredList = await tryItOut(page, 'GET', '/scenarios', choose({ state_id: '36', program: 'eitc' }));
  shown('GET /scenarios (state_id 36 and program eitc chosen)', filteredList, '200');
  check('the filtered list shows the new scenarios', token !== undefined && filteredList.body.includes(token), filteredList.body.slice(0, 500));
  const exported = await tryItOut(page, 'GET', '/scenarios/export', choose({ program: 'eitc' }));
  shown('GET /scenarios/export (JSON Lines, program eitc chosen)', exported, '200');
  check('the export is offered as a file, scenarios-<date>.jsonl, holding the new scenarios', /^scenarios-\d{4}-\d{2}-\d{2}\.jsonl$/.test(exported.filename ?? '') && token !== undefined && exported.body.includes(token), `${exported.filename}\n${exported.body.slice(0, 500)}`);
  const csv = await tryItOut(page, 'GET', '/scenarios/export', choose({ format: 'csv' }));
  shown('GET /scenarios/export (format csv chosen)', csv, '200');
  check('the CSV export is offered as scenarios-<date>.csv, with a header row and the new scenarios', /^scenarios-\d{4}-\d{2}-\d{2}\.csv$/.test(csv.filename ?? '') && csv.body.includes('id,token,state_id,') && token !== undefined && csv.body.includes(token), `${csv.filename}\n${csv.body.slice(0, 500)}`);
  const typeToken = async (block: Locator) => block.locator('tr[data-param-name="token"] input').fill(token ?? '');
  shown('GET /scenarios/{token} (view, the token typed in)', await tryItOut(page, 'GET', '/scenarios/{token}', typeToken), '200');
  const saved = await tryItOut(page, 'POST', '/scenarios/save', async (block) => {
    // The example body with the example token replaced by the scenario's.
    const editor = block.locator('textarea.body-param__text');
    const example = JSON.parse(await editor.inputValue()) as Record<string, unknown>;
    await editor.fill(JSON.stringify({ ...example, token }, null, 2));
  });
  shown('POST /scenarios/save (the token typed into the example body)', saved, '200');
  // History: the version parameters come filled in with their example (version 1).
  shown('GET /scenarios/{token}/revisions (the token typed in)', await tryItOut(page, 'GET', '/scenarios/{token}/revisions', typeToken), '200');
  shown('GET /scenarios/{token}/revisions/{version} (version 1)', await tryItOut(page, 'GET', '/scenarios/{token}/revisions/{version}', typeToken), '200');
  shown('GET /scenarios/{token}/diff (from version 1)', await tryItOut(page, 'GET', '/scenarios/{token}/diff', typeToken), '200');
  shown('POST /scenarios/{token}/revisions/{version}/restore (version 1)', await tryItOut(page, 'POST', '/scenarios/{token}/revisions/{version}/restore', typeToken), '200');
  // A patch (the example merge patch) and a share link, each with only the token typed in.
  shown('PATCH /scenarios/{token} (the example merge patch, the token typed in)', await tryItOut(page, 'PATCH', '/scenarios/{token}', typeToken), '200');
  const shared = await tryItOut(page, 'POST', '/scenarios/{token}/share_links', typeToken);
  shown('POST /scenarios/{token}/share_links (the token typed in)', shared, '201');
  const link = /"url":\s*"([^"]+)"/.exec(shared.body)?.[1];
  const linkId = /"id":\s*"(sl_[0-9a-f]{32})"/.exec(shared.body)?.[1];
  // Built from PUBLIC_ORIGIN, which npm start names by localhost (the passkeys' RP id cannot be an IP).
  check('the share link is on the service itself (PUBLIC_ORIGIN)', link !== undefined && link.startsWith(`http://localhost:${PORT}/shared/`), shared.body.slice(0, 500));
  shown('GET /scenarios/{token}/share_links (the token typed in)', await tryItOut(page, 'GET', '/scenarios/{token}/share_links', typeToken), '200');
  const revoke = async () =>
    (await fetch(`${base}/scenarios/${token}/share_links/${linkId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } })).status;
  const shareSummary = link ? await checkSharePage(context, link, revoke, check, '.out') : 'shared page: no link';
  shown('DELETE /scenarios/{token}/delete (the token typed in)', await tryItOut(page, 'DELETE', '/scenarios/{token}/delete', typeToken), '200');

  check('no request left the service (127.0.0.1 or localhost; no CDN)', external.length === 0, external.join('\n'));
  check(
    'no script errors, CSP violations or failed loads',
    problems.length === 0 && failedLoads.length === 0,
    [...problems, ...failedLoads.map((f) => `failed load: ${f}`)].join('\n'),
  );

  summary = `${dashboardSummary}\ndocs page: ${listed.length} operations listed, try-it GET /me ${status}, list/create/filters/export/view/save/patch/share/history/delete ok, ${shareSummary}, ${external.length} external requests (of ${requests}), screenshot ${SCREENSHOT}`;
} catch (error) {
  check('the browser check ran to the end', false, error instanceof Error ? (error.stack ?? error.message) : String(error));
} finally {
  await browser?.close().catch(() => {});
  await service?.stop();
  clearTimeout(watchdog);
}
if (summary) console.log(summary);
console.log(checks.summary());
process.exit(checks.failed === 0 ? 0 : 1);
