import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, explain, openDb, referenceText, sqlString, tempDir } from './helpers';

// Grouped min/max of dictionary-coded strings, taken from the entries a group's rows use
// (GroupedAggregation::DictionaryBounds): a dictionary written in order (a sorted or clustered
// column) by each group's least and greatest code, another by marking the entries per group, and
// one with too many groups times entries for either by comparing entries a row at a time; plain
// strings by comparing them a row at a time (PlainStringBounds). Pushed = not pushed = a
// DuckDB table, with NULLs, all-NULL groups, a filter, prefixes of one another and non-ASCII text.

let conn: DuckDBConnection;
const dir = tempDir('vtx-dict-bounds-');

// Strings that sort unlike their numbers ('k10' < 'k9'), some a prefix of another, some not ASCII.
const text = (v: string) =>
  `CASE ${v} % 5 WHEN 0 THEN 'k' || ${v} WHEN 1 THEN 'k' || ${v} || 'x' WHEN 2 THEN 'é' || ${v} WHEN 3 THEN 'K' || ${v} ELSE 'k' || (${v} // 10) END`;

const SHAPES: Record<string, string> = {
  // In order: the column sorted, so its dictionary's entries are written in order.
  sorted: `SELECT i % 7 AS g, (i // 97)::INTEGER AS n, CASE WHEN i % 11 = 0 THEN NULL ELSE lpad((i // 97)::VARCHAR, 6, '0') || '-u' END AS s FROM range(60000) r(i)`,
  // Random order, few values: each group marks the entries it uses.
  random: `SELECT i % 7 AS g, i AS n, CASE WHEN hash(i) % 9 = 0 THEN NULL ELSE ${text('(hash(i * 3) % 300)')} END AS s FROM range(60000) r(i)`,
  // A group whose rows are all NULL beside groups that are not.
  nullGroup: `SELECT i % 5 AS g, i AS n, CASE WHEN i % 5 = 2 THEN NULL ELSE ${text('(hash(i) % 40)')} END AS s FROM range(60000) r(i)`,
  // Many groups over a dictionary of thousands: entries compared a row at a time.
  manyGroups: `SELECT i % 100 AS g, i AS n, ${text('(hash(i) % 1500)')} AS s FROM range(60000) r(i)`,
  // Plain strings (nearly every value distinct), compared a row at a time on their first eight
  // bytes first: several share those bytes ('https://…'), some are empty or end within them.
  plain: `SELECT i % 7 AS g, i AS n, CASE WHEN hash(i) % 13 = 0 THEN NULL
      ELSE ['https://example.com/', 'https://example.co', 'é-', 'K', '', 'https:/'][1 + (hash(i * 5) % 6)::INTEGER] ||
        CASE WHEN hash(i * 7) % 4 = 0 THEN '' ELSE (hash(i * 3) % 1000000000)::VARCHAR END END AS s FROM range(60000) r(i)`,
  plainManyGroups: `SELECT i % 100 AS g, i AS n, 'https://example.com/' || (hash(i * 3) % 1000000000)::VARCHAR AS s FROM range(60000) r(i)`,
};

beforeAll(async () => {
  ({ conn } = await openDb());
  await conn.run('SET vortex_pushdown_cost_based = false');
  for (const [name, select] of Object.entries(SHAPES)) {
    await conn.run(`CREATE TABLE ${name} AS ${select}`);
    await conn.run(`COPY ${name} TO ${sqlString(join(dir, `${name}.vtx`))} (FORMAT vortex, ROW_GROUP_SIZE 20000)`);
  }
});

describe('grouped min/max over dictionary and plain strings', () => {
  it.each(Object.keys(SHAPES))('%s: pushed = not pushed = a DuckDB table', async (name) => {
    const file = sqlString(join(dir, `${name}.vtx`));
    const encodings = await answerText(conn, `SELECT DISTINCT encoding FROM vortex_metadata(${file}) WHERE column_name = 's' AND null_count < rows`);
    expect(encodings).toContain(name.startsWith('plain') ? 'plain' : 'dictionary');
    for (const query of [
      'SELECT g, min(s), max(s), count(s), count(*) FROM {t} GROUP BY g',
      'SELECT g, max(s) FROM {t} WHERE n % 3 <> 0 GROUP BY g',
      'SELECT g, min(s) FROM {t} WHERE n > 1000 AND n < 50000 GROUP BY g',
    ]) {
      const vtx = query.replace('{t}', `vortex_scan(${file})`);
      // (A range on the sorted column leaves the GROUP BY to DuckDB: answers alone there.)
      if (!(name === 'sorted' && query.includes('n > 1000'))) expect(await explain(conn, vtx)).toContain('VORTEX_SCAN_GROUPED');
      const pushed = await answerText(conn, `${vtx} ORDER BY ALL`);
      await conn.run('SET vortex_pushdown = false');
      const off = await answerText(conn, `${vtx} ORDER BY ALL`);
      await conn.run('RESET vortex_pushdown');
      const table = await referenceText(conn, `${query.replace('{t}', name)} ORDER BY ALL`);
      expect({ query, pushed }).toEqual({ query, pushed: table });
      expect({ query, off }).toEqual({ query, off: table });
    }
  });
});
