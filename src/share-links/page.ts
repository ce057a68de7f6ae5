// The page a share link opens: rendered here as one HTML string, with no script, its one style
// block allowed by hash (a strict CSP), the chart inlined as SVG (src/chart/), readable at 375 px.
// It is written for someone who is not a developer: state, year and programs by name, each person
// in words, and the codes the specification leaves unexplained as the numbers stored.
import { renderScenarioChart } from '../scenarios/chart/render.ts';
import { findState } from '../scenarios/states.ts';
import type { StoredScenarioData } from '../scenarios/data.ts';
import { sharedData, type Shared } from './forms.ts';
import { ADULT_FIELDS, CHILD_FIELDS, PROGRAM_NAMES, say, type Field } from './words.ts';

const STYLE = [
  ':root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#111827;background:#fff}',
  'body{margin:0}',
  'main{max-width:48rem;margin:0 auto;padding:1rem}',
  'h1{font-size:1.5rem;margin:.5rem 0}',
  'h2{font-size:1.2rem;margin:1.5rem 0 .5rem;border-bottom:1px solid #e5e7eb}',
  'h3{font-size:1.05rem;margin:1rem 0 .25rem}',
  '.note{color:#374151;font-size:.95rem}',
  'dl{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:.25rem 1rem;margin:0}',
  'dt{overflow-wrap:anywhere}',
  'dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}',
  'ul{padding-left:1.25rem;margin:.25rem 0}',
  'figure{margin:0}',
  'svg{display:block;max-width:100%;height:auto}',
  '.code{color:#374151}',
].join('');

/** The CSP's hash of STYLE, worked out once per isolate (the text never changes). */
let styleHash: Promise<string> | undefined;
function styleSource(): Promise<string> {
  styleHash ??= crypto.subtle
    .digest('SHA-256', new TextEncoder().encode(STYLE))
    .then((digest) => `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`);
  return styleHash;
}

/** The page's headers: nothing may load or run, the page is not indexed, framed, cached or referred from. */
export async function pageHeaders(): Promise<Record<string, string>> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none'; style-src ${await styleSource()}; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'X-Robots-Tag': 'noindex, nofollow',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    Vary: 'Accept',
  };
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function document(title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="robots" content="noindex,nofollow"><meta name="referrer" content="no-referrer">' +
    `<title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`
  );
}

/** "21 November 2026" in UTC, without Intl. */
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
function day(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

function rows(fields: readonly Field[], member: Record<string, unknown>): string {
  return fields
    .filter((field) => member[field.key] !== undefined)
    .map((field) => {
      const label = field.kind === 'code' ? `${field.label} <span class="code">(code)</span>` : esc(field.label);
      return `<dt>${label}</dt><dd>${esc(say(field.kind, member[field.key]))}</dd>`;
    })
    .join('');
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The household as a page. */
export function sharedPage(shared: Shared): string {
  const data = sharedData(shared) as Omit<StoredScenarioData, 'token'>;
  const state = findState(shared.stateId)?.name ?? `State ${shared.stateId}`;
  const title = `A household in ${state}, ${data.year}`;
  const adults = data.adult.map((adult, i) => {
    const name = adult.nickname ? `Adult ${i + 1}: ${esc(adult.nickname)}` : `Adult ${i + 1}`;
    return `<section aria-labelledby="adult-${i + 1}"><h3 id="adult-${i + 1}">${name}</h3><dl>${rows(ADULT_FIELDS, adult as unknown as Record<string, unknown>)}</dl></section>`;
  });
  const children = data.child.map(
    (child, i) =>
      `<section aria-labelledby="child-${i + 1}"><h3 id="child-${i + 1}">Child ${i + 1}</h3><dl>${rows(CHILD_FIELDS, child as unknown as Record<string, unknown>)}</dl></section>`,
  );
  const programs = data.programs.map((p) => `<li>${esc(PROGRAM_NAMES[p] ?? p)}</li>`).join('');
  const chart = renderScenarioChart({ ...data, token: '' }, state);
  const body =
    `<p class="note">A scenario shared with you, read only. It shows the household as it is saved now.</p>` +
    `<h1>${esc(title)}</h1>` +
    '<h2>In short</h2><dl>' +
    `<dt>State</dt><dd>${esc(state)}</dd><dt>Year</dt><dd>${data.year}</dd>` +
    `<dt>People</dt><dd>${plural(data.adult.length, 'adult', 'adults')}, ${plural(data.child.length, 'child', 'children')}</dd>` +
    (data.sub_division === undefined ? '' : `<dt>Sub-division <span class="code">(code)</span></dt><dd>${data.sub_division}</dd>`) +
    '</dl>' +
    `<h2>Programs to check</h2><ul>${programs}</ul>` +
    `<h2>Monthly income</h2><figure>${chart}<figcaption class="note">Each adult's income a month, by source (wages: hourly wage × hours a week × 52 ÷ 12). Every amount is also listed below.</figcaption></figure>` +
    `<h2>Adults</h2>${adults.join('')}` +
    `<h2>Children</h2>${children.length > 0 ? children.join('') : '<p>No children.</p>'}` +
    '<p class="note">Amounts are in US dollars. Fields marked “code” hold numbers whose meaning the scenario format does not define; they are shown as stored.</p>' +
    `<p class="note">This link works until ${day(shared.expiresAt)} unless it is revoked sooner.</p>`;
  return document(title, body);
}

/** The page of a link that opens nothing: the same for an unknown, revoked or expired link, or a deleted scenario. */
export function notFoundPage(): string {
  return document(
    'Link not found',
    '<h1>This link does not open anything</h1><p>The link may have expired or been revoked, or it was copied incompletely. Ask the person who shared it for a new one.</p>',
  );
}

/** The page for an address refused after too many links that opened nothing. */
export function throttledPage(): string {
  return document('Too many attempts', '<h1>Too many attempts</h1><p>Too many links that open nothing were tried from your network. Wait a minute and try again.</p>');
}
