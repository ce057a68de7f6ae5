// GET /scenarios/export through the Worker's fetch: JSON Lines and CSV, the list's filters, a
// stream of many pages, the snapshot rule while others are created, saved and deleted, resuming
// with starting_after, and a key revoked mid-export ending the transfer with an error.
import { env, exports } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { ScenarioDataInputSchema } from '../src/scenarios/schema.ts';
import { toStoredData } from '../src/scenarios/data.ts';
import { CSV_COLUMNS, csvField, EXPORT_PAGE_SIZE } from '../src/scenarios/export.ts';
import { admin, api, BASE, createAccountWithKey, createKey, createScenario, dbOf, scenarioData } from './helpers/api.ts';
import { expectProblem } from './helpers/contract.ts';

let key: string;
let accountId: number;
beforeEach(async () => {
  const created = await createAccountWithKey();
  key = created.key;
  accountId = created.account.id;
});

async function exportText(query = '', k = key) {
  const res = await api(k).get(`/scenarios/export${query}`);
  expect(res.status, res.text).toBe(200);
  return res;
}

/** The UTC date the export's file is named by (read before and after a request: it may pass midnight). */
const today = () => new Date().toISOString().slice(0, 10);
const lines = (text: string) => text.split('\n').filter((line) => line !== '');

/** Every list item, newest first, through the list itself. */
async function listAll(query = ''): Promise<any[]> {
  const items: any[] = [];
  let cursor: number | undefined;
  for (;;) {
    const res = await api(key).get(`/scenarios?limit=100${query}${cursor === undefined ? '' : `&starting_after=${cursor}`}`);
    expect(res.status, res.text).toBe(200);
    items.push(...res.body.data);
    if (!res.body.has_more) return items;
    cursor = res.body.data.at(-1).id;
  }
}

let tokenSeq = 0;
/**
 * Stores `n` scenarios of the account straight into its D1 database (the API would take minutes for thousands),
 * in the stored form the service writes; the triggers fill the program index as for any write.
 * Returns their ids, oldest first.
 */
async function insertMany(n: number, account = accountId): Promise<number[]> {
  const input = ScenarioDataInputSchema.parse(scenarioData({ programs: ['snap', 'wic'] }));
  const now = Date.now();
  const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
  for (let done = 0; done < n; ) {
    const statements: D1PreparedStatement[] = [];
    for (let s = 0; s < 25 && done < n; s++) {
      const values: string[] = [];
      for (let i = 0; i < 20 && done < n; i++, done++) {
        tokenSeq++;
        const token = `9${String(accountId % 100_000).padStart(5, '0')}${String(tokenSeq).padStart(9, '0')}`; // ids past the first database's have 13 digits
        values.push(`(${quote(token)}, ${account}, 36, ${quote(JSON.stringify(toStoredData(input, token)))}, 1, ${now}, ${now})`);
      }
      statements.push(dbOf(account).prepare(`INSERT INTO scenarios (token, account_id, state_id, scenario_data, version, created_at, updated_at) VALUES ${values.join(', ')}`));
    }
    await dbOf(account).batch(statements);
  }
  const { results } = await dbOf(account).prepare('SELECT id FROM scenarios WHERE account_id = ? ORDER BY id').bind(account).all<{ id: number }>();
  return results.map((r) => r.id);
}

/** The export's response, read chunk by chunk: `next()` gives the complete lines received so far. */
async function openExport(query = '', k = key) {
  const res = await exports.default.fetch(new Request(`${BASE}/scenarios/export${query}`, { headers: { Authorization: `Bearer ${k}` } }));
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const received: string[] = [];
  return {
    received,
    /** Reads until at least `count` lines have arrived, or the end; false at the end. */
    async readLines(count: number): Promise<boolean> {
      while (received.length < count) {
        const { done, value } = await reader.read();
        if (done) return false;
        buffered += decoder.decode(value, { stream: true });
        const parts = buffered.split('\n');
        buffered = parts.pop() ?? '';
        received.push(...parts);
      }
      return true;
    },
    async readAll(): Promise<void> {
      while (await this.readLines(Number.MAX_SAFE_INTEGER));
      expect(buffered, 'the last line ends with a line break').toBe('');
    },
  };
}

describe('JSON Lines (the default)', () => {
  it('sends one list item per line, newest first, exactly as the list shows it', async () => {
    for (let i = 0; i < 3; i++) await createScenario(key, scenarioData({ year: 2020 + i }));
    const before = today();
    const res = await exportText();
    expect(res.headers.get('Content-Type')).toBe('application/x-ndjson; charset=utf-8');
    expect([before, today()].map((date) => `attachment; filename="scenarios-${date}.jsonl"`)).toContain(res.headers.get('Content-Disposition'));
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    const listed = await listAll();
    expect(lines(res.text)).toEqual(listed.map((item) => JSON.stringify(item)));
    expect(res.text.endsWith('\n')).toBe(true);
  });

  it('sends an empty body for an account without scenarios', async () => {
    expect((await exportText()).text).toBe('');
  });

  it('applies the filters of the list', async () => {
    await createScenario(key, scenarioData({ state_id: 6, programs: ['snap'] }));
    await createScenario(key, scenarioData({ state_id: 36, programs: ['wic'] }));
    await createScenario(key, scenarioData({ state_id: 36, year: 2025, programs: ['snap', 'wic'] }));
    for (const query of ['state_id=36', 'program=wic', 'year=2025', 'state_id=36&program=snap', 'updated_since=2000-01-01T00:00:00Z']) {
      const exported = lines((await exportText(`?${query}`)).text).map((line) => JSON.parse(line).token);
      expect(exported, query).toEqual((await listAll(`&${query}`)).map((item) => item.token));
    }
    expect(lines((await exportText('?state_id=48')).text)).toEqual([]);
  });

  it('may be made with a read key', async () => {
    await createScenario(key);
    const reader = await createKey(accountId, { scope: 'read' });
    expect(lines((await exportText('', reader.key)).text)).toHaveLength(1);
  });

  it("never exports another account's scenarios", async () => {
    const other = await createAccountWithKey();
    await createScenario(other.key);
    const mine = (await createScenario(key)).token;
    expect(lines((await exportText()).text).map((line) => JSON.parse(line).token)).toEqual([mine]);
  });
});

describe('CSV', () => {
  it('sends a header row and one RFC 4180 summary row per scenario, newest first', async () => {
    const first = await createScenario(key, scenarioData({ state_id: 11, year: 2024, programs: ['snap', 'eitc', 'ctc'] }));
    const second = await createScenario(key, scenarioData({ state_id: 36, year: 2026, programs: ['wic'] }));
    const before = today();
    const res = await exportText('?format=csv');
    expect(res.headers.get('Content-Type')).toBe('text/csv; charset=utf-8; header=present');
    expect([before, today()].map((date) => `attachment; filename="scenarios-${date}.csv"`)).toContain(res.headers.get('Content-Disposition'));
    const rows = res.text.split('\r\n');
    expect(rows.pop()).toBe('');
    expect(rows[0]).toBe(CSV_COLUMNS.join(','));
    expect(rows[0]).toBe('id,token,state_id,state,year,programs,adults,children,created_at,updated_at,version');
    const listed = await listAll();
    const [newest, oldest] = listed;
    expect(rows.slice(1)).toEqual([
      `${newest.id},${second.token},36,New York,2026,wic,2,2,${newest.created_at},${newest.updated_at},1`,
      `${oldest.id},${first.token},11,District of Columbia,2024,snap;eitc;ctc,2,2,${oldest.created_at},${oldest.updated_at},1`,
    ]);
  });

  it('sends only the header for an account without scenarios', async () => {
    expect((await exportText('?format=csv')).text).toBe(`${CSV_COLUMNS.join(',')}\r\n`);
  });

  it('quotes fields as RFC 4180 says', () => {
    expect(csvField('New York')).toBe('New York');
    expect(csvField(36)).toBe('36');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\r\nlines')).toBe('"two\r\nlines"');
  });
});

describe('bad requests: 400 invalid_query, nothing sent', () => {
  it.each([
    ['format=xml', 'format'],
    ['format=', 'format'],
    ['state_id=3', 'state_id'],
    ['program=nope', 'program'],
    ['updated_since=soon', 'updated_since'],
    ['starting_after=0', 'starting_after'],
    ['limit=10', 'limit'],
    ['endding_before=5', 'endding_before'],
  ])('refuses %s', async (query, name) => {
    const res = await api(key).get(`/scenarios/export?${query}`);
    expectProblem(res, 400, 'invalid_query');
    expect(res.body.errors.map((e: any) => e.path)).toEqual([name]);
  });

  it('is GET only: 405 naming the allowed methods', async () => {
    const res = await api(key).post('/scenarios/export', {});
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('Allow')).toBe('GET, HEAD');
  });

  it('needs a key', async () => {
    expect((await api().get('/scenarios/export')).status).toBe(401);
  });
});

describe(`many pages (${EXPORT_PAGE_SIZE} rows each)`, () => {
  it('streams every scenario once, newest first, and resumes after a line with starting_after', async () => {
    const ids = await insertMany(2 * EXPORT_PAGE_SIZE + 137);
    const all = await openExport();
    await all.readAll();
    const exported = all.received.map((line) => JSON.parse(line).id as number);
    expect(exported).toEqual([...ids].reverse());
    // Resume after the 1,500th line (mid-page): the rest, exactly.
    const resumed = await openExport(`?starting_after=${exported[1499]}`);
    await resumed.readAll();
    expect(resumed.received).toEqual(all.received.slice(1500));
    // CSV rows carry the id, so a CSV export resumes the same way.
    const csv = await exportText(`?format=csv&starting_after=${exported[1499]}`);
    expect(csv.text.split('\r\n').slice(1, -1).map((row) => Number(row.split(',')[0]))).toEqual(exported.slice(1500));
  });

  it('is a snapshot: nothing created after it started, nothing twice or skipped while others are saved or deleted', async () => {
    const ids = await insertMany(3 * EXPORT_PAGE_SIZE + 50);
    const tokenOf = async (id: number) => (await dbOf(accountId).prepare('SELECT token FROM scenarios WHERE id = ?').bind(id).first<{ token: string }>())!.token;
    const run = await openExport();
    expect(await run.readLines(10)).toBe(true);
    // While the export runs: three creates, a save of one already sent and of one not yet sent,
    // and a delete of one not yet sent.
    const created: string[] = [];
    for (let i = 0; i < 3; i++) created.push((await createScenario(key)).token);
    const newest = await tokenOf(ids.at(-1)!);
    const savedLater = await tokenOf(ids[5]!);
    const deletedLater = await tokenOf(ids[7]!);
    for (const token of [newest, savedLater]) {
      expect((await api(key).post('/scenarios/save', { token, scenarioData: scenarioData({ programs: ['snap', 'wic'], year: 2030 }) })).status).toBe(200);
    }
    expect((await api(key).delete(`/scenarios/${deletedLater}`)).status).toBe(200);
    await run.readAll();
    const items = run.received.map((line) => JSON.parse(line));
    const exportedIds = items.map((item) => item.id as number);
    expect(new Set(exportedIds).size).toBe(exportedIds.length);
    expect(items.some((item) => created.includes(item.token))).toBe(false);
    expect(exportedIds).toEqual([...ids].reverse().filter((id) => id !== ids[7]));
    const saved = items.find((item) => item.token === savedLater);
    expect(saved.version).toBe(2);
    expect(saved.scenario_data.year).toBe(2030);
  });

  it('ends with an error, not a short file, when the key is revoked mid-export', async () => {
    const total = 5 * EXPORT_PAGE_SIZE;
    await insertMany(total);
    const issued = await createKey(accountId, { scope: 'read' });
    const run = await openExport('', issued.key);
    expect(await run.readLines(EXPORT_PAGE_SIZE)).toBe(true);
    expect((await admin().delete(`/admin/keys/${issued.id}`)).status).toBe(200);
    await expect(run.readAll()).rejects.toThrow();
    expect(run.received.length).toBeLessThan(total);
    // Every line received is whole, and resuming with another key from the last one finishes it.
    const last = JSON.parse(run.received.at(-1)!).id as number;
    const rest = await openExport(`?starting_after=${last}`);
    await rest.readAll();
    expect(run.received.length + rest.received.length).toBe(total);
  });
});
