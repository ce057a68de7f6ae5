// SVG chart of a scenario's monthly income per adult, built as a plain string so it costs next to
// nothing in a Worker and needs no DOM or library.
import type { StoredScenarioData } from '../data.ts';

type StoredAdult = StoredScenarioData['adult'][number];

interface Source {
  label: string;
  colour: string;
  monthly: (adult: StoredAdult) => number;
}

// Weeks per month: hours are weekly, the chart is monthly.
const WEEKS_PER_MONTH = 52 / 12;

// Colour-blind-friendly, mutually distinct hues; order is the stacking order.
const SOURCES: readonly Source[] = [
  { label: 'Wages', colour: '#0072B2', monthly: (a) => num(a.wage_rate) * num(a.work_hours_per_week) * WEEKS_PER_MONTH },
  { label: 'SSI', colour: '#E69F00', monthly: (a) => num(a.monthly_ssi) },
  { label: 'Child support', colour: '#009E73', monthly: (a) => num(a.child_support) },
  { label: 'Unemployment', colour: '#D55E00', monthly: (a) => num(a.unemp_comp) },
  { label: 'Disability', colour: '#56B4E9', monthly: (a) => num(a.monthly_disability) },
  { label: 'Retirement', colour: '#CC79A7', monthly: (a) => num(a.soc_sec_retirement) },
  { label: 'Other', colour: '#8C6D31', monthly: (a) => num(a.other_unearned) },
];

const WIDTH = 720;
const PAD = 24;
const BAR_X0 = 240;
const BAR_X1 = WIDTH - PAD;
const ROW_HEIGHT = 44;
const BAR_HEIGHT = 26;
const NAME_MAX_CHARS = 24;
const FONT = 'system-ui, sans-serif';
// Rough glyph advance used to wrap text, since there is no font metrics API here.
const CHAR_WIDTH_12PX = 6.5;
const CHAR_WIDTH_11PX = 6;

/** Stored amounts are decimal strings; anything unparsable or infinite counts as nothing. */
function num(value: string | number | undefined): number {
  const n = Number(value ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** "$1,234.50" without Intl, so output does not depend on the runtime's locale data. */
function formatMoney(value: number, decimals = 2): string {
  const safe = Number.isFinite(value) ? value : 0;
  const [whole = '0', frac] = Math.abs(safe).toFixed(decimals).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const sign = safe < 0 && Number(whole + (frac ?? '')) !== 0 ? '-' : '';
  return `${sign}$${grouped}${frac === undefined ? '' : `.${frac}`}`;
}

/** Coordinates with at most 2 decimals keep the document small; non-finite never reaches the output. */
function coord(value: number): string {
  return Number.isFinite(value) ? String(Math.round(value * 100) / 100) : '0';
}

/**
 * XML-escape user text. Lone surrogates and C0 controls are not allowed in XML even when escaped,
 * so they are dropped rather than risk an unparsable document.
 */
function esc(text: string): string {
  return text
    .toWellFormed()
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Truncates by code point so an emoji is never cut in half. */
function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Greedy word wrap by estimated width; a single over-long word gets a line of its own. */
function wrap(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (next.length > maxChars && line !== '') {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** A round tick step (1, 2, 2.5 or 5 × 10^k) giving at most 5 intervals, so labels read as plain amounts. */
function tickStep(max: number): number {
  const rough = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  return ([1, 2, 2.5, 5, 10].find((m) => m * magnitude >= rough) ?? 10) * magnitude;
}

function text(x: number, y: number, content: string, attrs = ''): string {
  return `<text x="${coord(x)}" y="${coord(y)}"${attrs ? ` ${attrs}` : ''}>${content}</text>`;
}

export function renderScenarioChart(data: StoredScenarioData, stateName: string): string {
  const adults = data.adult.map((adult, index) => {
    const nickname = adult.nickname?.trim();
    const name = nickname ? nickname : `Adult ${index + 1}`;
    const amounts = SOURCES.map((source) => source.monthly(adult));
    const total = amounts.reduce((sum, v) => sum + v, 0);
    return { name, amounts, total };
  });
  const household = adults.reduce((sum, a) => sum + a.total, 0);
  const childCount = data.child.length;
  const year = Number.isFinite(data.year) ? String(data.year) : '';
  const title = `${stateName} · ${year}`;
  const subtitle = `Household monthly income ${formatMoney(household)} · ${plural(adults.length, 'adult', 'adults')} · ${plural(childCount, 'child', 'children')}`;

  // Legend only for sources someone has, so every colour on the page means something.
  const present = SOURCES.map((source, i) => ({ source, i })).filter(({ i }) => adults.some((a) => (a.amounts[i] ?? 0) > 0));

  const parts: string[] = [];
  parts.push(text(PAD, 36, esc(title), 'font-size="20" font-weight="600" fill="#111827"'));
  parts.push(text(PAD, 58, esc(subtitle), 'font-size="13" fill="#4b5563"'));

  let y = 86;
  if (present.length === 0) {
    parts.push(text(PAD, y, 'No income reported', 'font-size="12" fill="#6b7280"'));
  } else {
    let x = PAD;
    for (const { source } of present) {
      const itemWidth = 18 + source.label.length * CHAR_WIDTH_12PX + 18;
      if (x + itemWidth > WIDTH - PAD && x > PAD) {
        x = PAD;
        y += 20;
      }
      parts.push(`<rect x="${coord(x)}" y="${coord(y - 10)}" width="12" height="12" rx="2" fill="${source.colour}"/>`);
      parts.push(text(x + 18, y, esc(source.label), 'font-size="12" fill="#374151"'));
      x += itemWidth;
    }
  }

  const barsTop = y + 16;
  const barsBottom = barsTop + Math.max(adults.length, 1) * ROW_HEIGHT;
  const maxTotal = adults.reduce((m, a) => Math.max(m, a.total), 0);
  // With no income there is nothing to scale against: keep the tracks and skip the axis.
  const step = maxTotal > 0 ? tickStep(maxTotal) : 0;
  const intervals = step > 0 ? Math.max(1, Math.ceil(maxTotal / step - 1e-9)) : 0;
  const axisMax = step * intervals;
  const barSpan = BAR_X1 - BAR_X0;
  const scale = axisMax > 0 ? barSpan / axisMax : 0;
  const ticks = Array.from({ length: intervals > 0 ? intervals + 1 : 0 }, (_, i) => i * step);

  if (adults.length === 0) {
    parts.push(text(PAD, barsTop + 26, 'No adults in this scenario', 'font-size="12" fill="#6b7280"'));
  }

  // Tracks, then gridlines, then bars: the grid shows on empty track but never over a bar.
  const tracks: string[] = [];
  const grid: string[] = [];
  const bars: string[] = [];
  adults.forEach((adult, row) => {
    const rowY = barsTop + row * ROW_HEIGHT;
    const barY = rowY + (ROW_HEIGHT - BAR_HEIGHT) / 2;
    const displayName = truncate(adult.name, NAME_MAX_CHARS);
    bars.push(`<g>`);
    bars.push(`<title>${esc(`${adult.name}: ${formatMoney(adult.total)} a month`)}</title>`);
    bars.push(text(PAD, rowY + 19, esc(displayName), 'font-size="13" font-weight="600" fill="#111827"'));
    bars.push(text(PAD, rowY + 35, esc(`${formatMoney(adult.total)} / month`), 'font-size="12" fill="#4b5563"'));
    tracks.push(`<rect x="${BAR_X0}" y="${coord(barY)}" width="${barSpan}" height="${BAR_HEIGHT}" rx="3" fill="#f3f4f6"/>`);
    if (adult.total === 0) {
      bars.push(text(BAR_X0 + 8, barY + BAR_HEIGHT / 2 + 4, 'No income', 'font-size="11" fill="#6b7280"'));
    }
    let x = BAR_X0;
    SOURCES.forEach((source, i) => {
      const amount = adult.amounts[i] ?? 0;
      const width = amount * scale;
      if (!(width > 0)) return;
      bars.push(
        `<rect x="${coord(x)}" y="${coord(barY)}" width="${coord(width)}" height="${BAR_HEIGHT}" fill="${source.colour}" stroke="#ffffff" stroke-width="1">` +
          `<title>${esc(`${source.label}: ${formatMoney(amount)}`)}</title></rect>`,
      );
      x += width;
    });
    bars.push(`</g>`);
  });

  let footerY = barsBottom + 30;
  if (ticks.length > 0) {
    const labels = ticks.map((tick) => formatMoney(tick, tick % 1 === 0 ? 0 : 2));
    // Huge amounts make long labels; keep only the ends rather than let them overlap.
    const longest = labels.reduce((m, l) => Math.max(m, l.length), 0);
    const endsOnly = longest * CHAR_WIDTH_11PX > (barSpan / intervals) * 0.9;
    ticks.forEach((tick, i) => {
      const tx = BAR_X0 + tick * scale;
      grid.push(`<line x1="${coord(tx)}" y1="${coord(barsTop)}" x2="${coord(tx)}" y2="${coord(barsBottom)}" stroke="#9ca3af" stroke-opacity="0.35" stroke-width="1"/>`);
      const last = i === ticks.length - 1;
      if (endsOnly && i !== 0 && !last) return;
      const anchor = i === 0 ? 'start' : last ? 'end' : 'middle';
      parts.push(text(tx, barsBottom + 16, labels[i] ?? '', `font-size="11" fill="#6b7280" text-anchor="${anchor}"`));
    });
    footerY += 12;
  }
  parts.push(...tracks, ...grid, ...bars);

  parts.push(`<line x1="${PAD}" y1="${coord(footerY - 16)}" x2="${WIDTH - PAD}" y2="${coord(footerY - 16)}" stroke="#e5e7eb" stroke-width="1"/>`);
  const programs = data.programs.length > 0 ? data.programs.join(', ') : 'none';
  const footerLines = wrap(`Programs evaluated: ${programs}`, Math.floor((WIDTH - 2 * PAD) / CHAR_WIDTH_11PX));
  footerLines.forEach((line, i) => {
    parts.push(text(PAD, footerY + i * 16, esc(line), 'font-size="11" fill="#6b7280"'));
  });
  const height = Math.ceil(footerY + (footerLines.length - 1) * 16 + 20);

  const summary =
    `Monthly income by source for each adult, ${title}. ${subtitle}. ` +
    adults.map((a) => `${a.name}: ${formatMoney(a.total)}`).join('; ') +
    (adults.length > 0 ? '.' : '');

  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" font-family="${FONT}">` +
    `<title>${esc(summary)}</title>` +
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>` +
    parts.join('') +
    `</svg>`
  );
}
