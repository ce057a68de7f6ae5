// GET /scenarios/export: every scenario of the caller that matches the filters, newest first, as a
// stream that reads one keyset page per D1 round trip (the key checked in each), so memory stays
// at a page or two however many scenarios there are. Nothing here knows HTTP: the route validates,
// calls `exportScenarios` and sends the stream it returns.
//
// What the export promises (docs/decisions.md, "Finding and exporting scenarios"):
// - A snapshot of membership. Pages walk ids downward, and every new scenario takes an id above
//   all earlier ones, so nothing created after the first page was read appears. Each scenario
//   appears at most once (ids strictly decrease). One that exists and matches the filters from the
//   start until the export passes it appears exactly once, whatever is saved or deleted elsewhere.
//   A scenario saved or deleted before the export reaches it appears as its page finds it (its
//   `version` says which), or not at all if it is gone or no longer matches.
// - The key is judged on every page: a key revoked (or expired) mid-export ends the stream with an
//   error at the next page, so the client sees a failed transfer, not a short file. An export that
//   ends without an error is complete; after a failure, `starting_after` = the id of the last
//   complete line resumes it.
import { KeyRefusedError, type Keyed } from '../auth/keyed.ts';
import { DatabaseUnavailableError } from '../db/execute.ts';
import { ApiError } from '../http/problem.ts';
import type { Scenario } from '../db/schema.ts';
import { formatTimestamp } from '../http/timestamps.ts';
import type { ScenarioFilter } from './filters.ts';
import { listItemJson, stateOf } from './forms.ts';
import { expiredAt } from './retention.ts';
import { listScenarios } from './workflows.ts';

export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * Rows per page, so per D1 round trip. 1,000 rows of two adults and two children are about 2 MB:
 * an account of 100,000 scenarios (the quota's default until issue 37; now 20,000) exports in 100
 * round trips, within a Worker invocation's 1,000 D1 queries on the Workers Paid plan (50 on Free:
 * 49,000 rows, then resume with starting_after).
 */
export const EXPORT_PAGE_SIZE = 1000;

/**
 * What the document states as the longest export: an account of 100,000 scenarios (the former
 * default quota, which accounts made before may still hold) of list items of 20 adults and 20
 * children with the longest values (about 30 KB each) is 3 GB.
 */
export const EXPORT_MAX_BYTES = 3_000_000_000;

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
};

const FILE_EXTENSIONS: Record<ExportFormat, string> = { ndjson: 'jsonl', csv: 'csv' };

/** `attachment; filename="scenarios-2026-11-21.jsonl"`: the file a browser or `curl -OJ` saves, dated (UTC) when it was made. */
export function exportDisposition(format: ExportFormat, now: number): string {
  return `attachment; filename="scenarios-${new Date(now).toISOString().slice(0, 10)}.${FILE_EXTENSIONS[format]}"`;
}

/** The CSV columns: `id` first, so a CSV export can be resumed with starting_after like JSON Lines. */
export const CSV_COLUMNS = ['id', 'token', 'state_id', 'state', 'year', 'programs', 'adults', 'children', 'created_at', 'updated_at', 'version'] as const;

/** RFC 4180: a field with a comma, a double quote or a line break is quoted, its quotes doubled. */
export function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const CRLF = '\r\n';
export const CSV_HEADER = `${CSV_COLUMNS.join(',')}${CRLF}`;

interface StoredSummary {
  year: number;
  programs: string[];
  adult: unknown[];
  child: unknown[];
}

/** One scenario as a CSV summary row (CRLF-terminated, as RFC 4180 writes records). */
export function csvRow(row: Scenario): string {
  const data = JSON.parse(row.scenarioData) as StoredSummary;
  const fields = [
    row.id,
    row.token,
    row.stateId,
    stateOf(row.stateId).name,
    data.year,
    data.programs.join(';'),
    data.adult.length,
    data.child.length,
    formatTimestamp(row.createdAt),
    formatTimestamp(row.updatedAt),
    row.version,
  ];
  return `${fields.map(csvField).join(',')}${CRLF}`;
}

/** One scenario as a JSON Lines line: the list item, exactly as GET /scenarios shows it. */
export function ndjsonLine(row: Scenario, retentionDays: number | null, now: number): string {
  return `${listItemJson(row, expiredAt(row.updatedAt, retentionDays, now))}\n`;
}

export interface ExportRequest {
  filter: ScenarioFilter;
  format: ExportFormat;
  /** Resume after this id (the last line received); omitted: from the newest. */
  startingAfter?: number | undefined;
  retentionDays: number | null;
  /** Called when a page after the first fails (the stream then errors): for the log. */
  onError?: (error: unknown) => void;
}

/**
 * Reads the first page (so a refused key or D1 being unavailable is the request's own error, with
 * its status), then returns the stream of the whole export. Each later page is read when the
 * stream is pulled, so at most a page waits in memory beside the one being sent.
 */
export async function exportScenarios(keyed: Keyed, request: ExportRequest): Promise<ReadableStream<Uint8Array>> {
  const { filter, format, retentionDays } = request;
  const now = keyed.key.now;
  const encoder = new TextEncoder();
  const render = (rows: Scenario[]) => {
    let text = '';
    for (const row of rows) text += format === 'csv' ? csvRow(row) : ndjsonLine(row, retentionDays, now);
    return text;
  };
  const first = await listScenarios(keyed, { limit: EXPORT_PAGE_SIZE, startingAfter: request.startingAfter }, filter);
  let pending: string | null = (format === 'csv' ? CSV_HEADER : '') + render(first.rows);
  let cursor = first.hasMore ? first.rows.at(-1)?.id : undefined;

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (pending === null) {
          if (cursor === undefined) {
            controller.close();
            return;
          }
          const page = await listScenarios(keyed, { limit: EXPORT_PAGE_SIZE, startingAfter: cursor }, filter);
          pending = render(page.rows);
          cursor = page.hasMore ? page.rows.at(-1)?.id : undefined;
        }
        if (pending !== '') controller.enqueue(encoder.encode(pending));
        pending = null;
        if (cursor === undefined) controller.close();
      } catch (error) {
        request.onError?.(error);
        controller.error(new ExportStoppedError(exportStopReason(error)));
      }
    },
  });
}

/** What ends a stream whose next page failed: the transfer fails, and the client resumes. */
export class ExportStoppedError extends Error {
  constructor(reason: string) {
    super(`export stopped (${reason}); resume with starting_after = the id of the last line received`);
    this.name = 'ExportStoppedError';
  }
}

/** Why a page after the first failed, as logged (never the error's message: D1's quote SQL). */
export function exportStopReason(error: unknown): string {
  if (error instanceof ApiError) return error.code;
  if (error instanceof KeyRefusedError) return error.reason;
  if (error instanceof DatabaseUnavailableError) return 'unavailable';
  return error instanceof Error ? error.name : 'unknown';
}
