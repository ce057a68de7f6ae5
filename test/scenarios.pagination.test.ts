// GET /scenarios: newest first, limit 1–100 (default 10), keyset cursors starting_after and
// endding_before (ending_before too), has_more, and tenant isolation.
import { beforeEach, describe, expect, it } from 'vitest';
import { databaseOfId } from '../src/db/databases.ts';
import { api, createAccountWithKey, createAccountWithKeyOn, createKey, createScenario, scenarioData } from './helpers/api.ts';
import { expectProblem, listAll } from './helpers/scenarios.ts';

let key: string;
let accountId: number;
beforeEach(async () => {
  const created = await createAccountWithKey();
  key = created.key;
  accountId = created.account.id;
});

/** Creates n scenarios (years 2001, 2002, ...), returns their tokens oldest first. */
async function createMany(n: number, k = key): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) tokens.push((await createScenario(k, scenarioData({ year: 2001 + (i % 99) }))).token);
  return tokens;
}

async function page(query: string, k = key) {
  const res = await api(k).get(`/scenarios${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body as { data: any[]; has_more: boolean };
}

const tokensOf = (items: any[]) => items.map((s) => s.token);

describe('page shape', () => {
  it('answers {data: [], has_more: false} for an account without scenarios', async () => {
    expect(await page('')).toEqual({ data: [], has_more: false });
  });

  it('answers exactly data and has_more', async () => {
    await createMany(1);
    expect(Object.keys(await page('')).sort()).toEqual(['data', 'has_more']);
  });
});

describe('limit', () => {
  it('gives 10 items by default, with has_more', async () => {
    const tokens = await createMany(12);
    const first = await page('');
    expect(first.data).toHaveLength(10);
    expect(first.has_more).toBe(true);
    expect(tokensOf(first.data)).toEqual(tokens.slice(2).reverse());
  });

  it('gives has_more false when the page holds the last item exactly', async () => {
    await createMany(10);
    const first = await page('');
    expect(first.data).toHaveLength(10);
    expect(first.has_more).toBe(false);
  });

  it.each(['1', '3', '100'])('accepts limit=%s', async (limit) => {
    await createMany(3);
    const res = await page(`?limit=${limit}`);
    expect(res.data).toHaveLength(Math.min(Number(limit), 3));
    expect(res.has_more).toBe(Number(limit) < 3);
  });

  it.each(['0', '101', 'abc', '5.5', '-1', '', '1e1', ' 5'])('refuses limit=%j with 400 invalid_query', async (limit) => {
    const res = await api(key).get(`/scenarios?limit=${encodeURIComponent(limit)}`);
    expectProblem(res, 400, 'invalid_query');
    expect(res.body.errors.map((e: any) => e.path)).toEqual(['limit']);
    expect(res.body.errors[0].message.length).toBeGreaterThan(0);
  });

  it('refuses limit given twice', async () => {
    expectProblem(await api(key).get('/scenarios?limit=5&limit=6'), 400, 'invalid_query');
  });
});

describe('order and cursors', () => {
  it('lists newest first', async () => {
    const tokens = await createMany(4);
    const data = (await page('')).data;
    expect(tokensOf(data)).toEqual([...tokens].reverse());
    const ids = data.map((s) => s.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it('refuses starting_after and endding_before together with 400 invalid_query', async () => {
    const res = await api(key).get('/scenarios?starting_after=5&endding_before=2');
    expectProblem(res, 400, 'invalid_query');
    expect(res.body.errors.length).toBeGreaterThan(0);
  });

  it('refuses starting_after and ending_before together', async () => {
    expectProblem(await api(key).get('/scenarios?starting_after=5&ending_before=2'), 400, 'invalid_query');
  });

  it.each(['0', '-1', 'abc', '1.5', '', '01'])('refuses the cursor starting_after=%j', async (cursor) => {
    const res = await api(key).get(`/scenarios?starting_after=${encodeURIComponent(cursor)}`);
    expectProblem(res, 400, 'invalid_query');
    expect(res.body.errors.map((e: any) => e.path)).toEqual(['starting_after']);
  });

  it.each(['endding_before', 'ending_before'])('refuses a malformed %s', async (name) => {
    const res = await api(key).get(`/scenarios?${name}=x`);
    expectProblem(res, 400, 'invalid_query');
    // The misspelling is the same parameter (src/versions/changes/misspelt-cursor.ts): named by its spelling.
    expect(res.body.errors.map((e: any) => e.path)).toEqual(['ending_before']);
  });

  it.each(['page', 'offset', 'starting_before', 'sort'])('refuses the unknown query parameter %s with 400', async (name) => {
    const res = await api(key).get(`/scenarios?${name}=1`);
    expectProblem(res, 400, 'invalid_query');
    expect(res.body.errors.map((e: any) => e.path)).toEqual([name]);
  });

  it('pages forward with starting_after', async () => {
    const tokens = await createMany(5);
    const first = await page('?limit=2');
    const second = await page(`?limit=2&starting_after=${first.data[1].id}`);
    expect(tokensOf(second.data)).toEqual([tokens[2], tokens[1]]);
    expect(second.has_more).toBe(true);
  });

  it.each(['endding_before', 'ending_before'])('pages backward with %s', async (name) => {
    const tokens = await createMany(5);
    const all = (await page('')).data;
    const oldest = all.at(-1);
    const back = await page(`?limit=2&${name}=${oldest.id}`);
    expect(tokensOf(back.data)).toEqual([tokens[2], tokens[1]]);
    expect(back.has_more).toBe(true);
  });

  it('gives has_more false when paging backward reaches the newest', async () => {
    const tokens = await createMany(3);
    const all = (await page('')).data;
    const back = await page(`?limit=5&endding_before=${all.at(-1).id}`);
    expect(tokensOf(back.data)).toEqual([tokens[2], tokens[1]]);
    expect(back.has_more).toBe(false);
  });

  it('accepts endding_before and ending_before with the same value together', async () => {
    await createMany(3);
    const oldest = (await page('')).data.at(-1);
    const res = await page(`?endding_before=${oldest.id}&ending_before=${oldest.id}`);
    expect(res.data).toHaveLength(2);
  });

  it('refuses endding_before and ending_before with different values', async () => {
    const res = await api(key).get('/scenarios?endding_before=3&ending_before=4');
    expectProblem(res, 400, 'invalid_query');
    expect(res.body.errors.length).toBeGreaterThan(0);
  });

  it('gives an empty page past the oldest item', async () => {
    await createMany(2);
    const oldest = (await page('')).data.at(-1);
    expect(await page(`?starting_after=${oldest.id}`)).toEqual({ data: [], has_more: false });
  });
});

describe('walking all pages', () => {
  it('walks forward over 57 scenarios 5 at a time, each seen exactly once', async () => {
    const tokens = await createMany(57);
    const seen: string[] = [];
    let query = '?limit=5';
    let pages = 0;
    for (;;) {
      const res = await page(query);
      pages++;
      seen.push(...tokensOf(res.data));
      if (!res.has_more) break;
      expect(res.data).toHaveLength(5);
      query = `?limit=5&starting_after=${res.data.at(-1).id}`;
    }
    expect(pages).toBe(12);
    expect(seen).toEqual([...tokens].reverse());
  });

  it('walks backward with endding_before from the end, each seen exactly once', async () => {
    const tokens = await createMany(23);
    const oldest = (await listAll(key)).at(-1);
    const seen: string[] = [oldest.token];
    let cursor = oldest.id;
    for (;;) {
      const res = await page(`?limit=5&endding_before=${cursor}`);
      // Each page is newest first; walking backward the pages come oldest first.
      seen.push(...tokensOf(res.data).reverse());
      if (!res.has_more) break;
      cursor = res.data[0].id;
    }
    expect(seen).toEqual(tokens);
  });

  it('neither repeats nor skips while others are created and deleted during the walk', async () => {
    const tokens = await createMany(12);
    const first = await page('?limit=4');
    await createScenario(key);
    await api(key).delete(`/scenarios/${tokens[11]}`);
    const second = await page(`?limit=4&starting_after=${first.data.at(-1).id}`);
    expect(tokensOf(second.data)).toEqual(tokens.slice(4, 8).reverse());
  });
});

describe('cursors that name no item of the caller', () => {
  it("pages from a deleted item's id", async () => {
    const tokens = await createMany(6);
    const all = await listAll(key);
    const middle = all.find((s) => s.token === tokens[3]);
    await api(key).delete(`/scenarios/${tokens[3]}`);
    expect(tokensOf((await page(`?starting_after=${middle.id}`)).data)).toEqual([tokens[2], tokens[1], tokens[0]]);
    expect(tokensOf((await page(`?endding_before=${middle.id}`)).data)).toEqual([tokens[5], tokens[4]]);
  });

  it("pages the caller's own items from another account's id", async () => {
    // On the caller's database, where scenario ids interleave (each database numbers its own).
    const other = await createAccountWithKeyOn(databaseOfId(accountId));
    const mine1 = (await createScenario(key)).token;
    const theirs1 = (await createScenario(other.key)).token;
    const mine2 = (await createScenario(key)).token;
    const theirs2 = (await createScenario(other.key)).token;
    const mine3 = (await createScenario(key)).token;
    const theirList = await listAll(other.key);
    const pivot = theirList.find((s) => s.token === theirs2).id;
    const older = await page(`?starting_after=${pivot}`);
    expect(tokensOf(older.data)).toEqual([mine2, mine1]);
    const newer = await page(`?endding_before=${theirList.find((s) => s.token === theirs1).id}`);
    expect(tokensOf(newer.data)).toEqual([mine3, mine2]);
  });

  it('accepts a cursor far beyond any id', async () => {
    const tokens = await createMany(2);
    expect(tokensOf((await page('?starting_after=9999999999')).data)).toEqual([...tokens].reverse());
    expect(await page('?endding_before=9999999999')).toEqual({ data: [], has_more: false });
    expect(tokensOf((await page('?starting_after=9999999999999999')).data)).toEqual([...tokens].reverse());
  });
});

describe('tenant isolation', () => {
  it("never lists another account's scenarios", async () => {
    const other = await createAccountWithKey();
    const mine = await createMany(3);
    const theirs = await createMany(4, other.key);
    const myList = await listAll(key);
    const theirList = await listAll(other.key);
    expect(tokensOf(myList)).toEqual([...mine].reverse());
    expect(tokensOf(theirList)).toEqual([...theirs].reverse());
    expect(myList.every((s) => s.user_id === accountId)).toBe(true);
    expect(theirList.every((s) => s.user_id === other.account.id)).toBe(true);
  });

  it("never pages into another account's scenarios with any cursor", async () => {
    const other = await createAccountWithKey();
    const theirs = new Set(await createMany(3, other.key));
    await createMany(2);
    for (const query of ['?starting_after=9999999999', '?endding_before=1', '?limit=100']) {
      expect(tokensOf((await page(query)).data).some((t) => theirs.has(t)), query).toBe(false);
    }
  });

  it('lists with a read-only key', async () => {
    const tokens = await createMany(2);
    const readKey = await createKey(accountId, { scope: 'read' });
    expect(tokensOf((await page('', readKey.key)).data)).toEqual([...tokens].reverse());
  });
});
