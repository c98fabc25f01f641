import type { DuckDBConnection } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerOf, checkForm, compareAnswers, createHits, judgeAnswers, missingRows, readQueries } from '../bench/clickbench-table.mjs';
import type { Answer } from '../bench/clickbench-table.mjs';
import { openDb, sqlString, tempDir } from './helpers';

// ClickBench's 43 queries (issue 57) over a small table of bench/clickbench.mjs's generator: .vtx
// with pushdown on, .vtx with pushdown off, Parquet and DuckDB's table must give the same answers,
// up to tied rows. The queries and the table definition are read from ../shared/clickbench (their
// licence is not ours); without it the suite is skipped. The timing runs live in the bench
// (`node bench/clickbench.mjs --rows=1000000`).

const cbDir = join(__dirname, '..', '..', 'shared', 'clickbench');
const present = existsSync(join(cbDir, 'create.sql'));
const ROWS = 30_000;

const SOURCES = [
  { key: 'on', setup: ["SET search_path = 'vtx'", 'SET vortex_pushdown = true', 'SET vortex_pushdown_expressions = true'] },
  { key: 'off', setup: ["SET search_path = 'vtx'", 'SET vortex_pushdown = false', 'SET vortex_pushdown_expressions = false'] },
  { key: 'parquet', setup: ["SET search_path = 'pq'", 'SET vortex_pushdown = true', 'SET vortex_pushdown_expressions = true'] },
  { key: 'table', setup: ["SET search_path = 'main'", 'SET vortex_pushdown = true', 'SET vortex_pushdown_expressions = true'] },
] as const;

describe.skipIf(!present)('ClickBench queries over a hits-shaped table', () => {
  let conn: DuckDBConnection;
  const dir = tempDir('vtx-clickbench-');

  async function answer(source: (typeof SOURCES)[number], sql: string): Promise<Answer> {
    for (const s of source.setup) await conn.run(s);
    return answerOf(await conn.runAndReadAll(sql));
  }

  beforeAll(async () => {
    ({ conn } = await openDb());
    await createHits(conn, cbDir, ROWS);
    const vtx = join(dir, 'hits.vtx'), parquet = join(dir, 'hits.parquet');
    // Small zones, so that a 30,000-row file has many of them.
    await conn.run(`COPY hits TO ${sqlString(vtx)} (FORMAT vortex, ROW_GROUP_SIZE 4096)`);
    await conn.run(`COPY hits TO ${sqlString(parquet)} (FORMAT parquet, ROW_GROUP_SIZE 4096)`);
    await conn.run('CREATE SCHEMA vtx');
    await conn.run('CREATE SCHEMA pq');
    await conn.run(`CREATE VIEW vtx.hits AS SELECT * FROM vortex_scan(${sqlString(vtx)})`);
    await conn.run(`CREATE VIEW pq.hits AS SELECT * FROM read_parquet(${sqlString(parquet)})`);
  });

  it('the table has create.sql\'s 105 columns, sorted rows, and the queries\' constants', async () => {
    const r = await conn.runAndReadAll(`SELECT count(*), count(DISTINCT CounterID), count(*) FILTER (WHERE CounterID = 62),
      count(*) FILTER (WHERE UserID = 435090932899640449), count(*) FILTER (WHERE URL LIKE '%google%'),
      count(*) FILTER (WHERE SearchPhrase <> ''), (SELECT count(*) FROM duckdb_columns() WHERE table_name = 'hits' AND schema_name = 'main' AND NOT internal) FROM main.hits`);
    const [rows, counters, c62, user, google, phrases, columns] = r.getRowsJS()[0].map(Number);
    expect(rows).toBe(ROWS);
    expect(columns).toBe(105);
    expect(counters).toBeGreaterThan(100);
    expect(c62).toBeGreaterThan(ROWS * 0.05);
    expect(user).toBeGreaterThan(0);
    expect(google).toBeGreaterThan(0);
    expect(phrases).toBeGreaterThan(ROWS * 0.05);
    const unsorted = await conn.runAndReadAll(`SELECT count(*) FROM (SELECT CounterID, EventDate, UserID, EventTime, WatchID,
      lag((CounterID, EventDate, UserID, EventTime, WatchID)) OVER (ORDER BY rowid) AS prev FROM main.hits)
      WHERE prev > (CounterID, EventDate, UserID, EventTime, WatchID)`);
    expect(Number(unsorted.getRowsJS()[0][0])).toBe(0);
  });

  const queries = present ? readQueries(cbDir) : [];
  it('reads the 43 queries', () => expect(queries.map((q) => q.name)).toEqual(Array.from({ length: 43 }, (_, i) => `q${String(i).padStart(2, '0')}`)));

  it.each(queries)('$name: pushed = off = Parquet = DuckDB\'s table, up to ties', async ({ sql }) => {
    const form = checkForm(sql);
    const checked: Record<string, Answer> = {}, plain: Record<string, Answer> = {};
    for (const src of SOURCES) {
      checked[src.key] = await answer(src, form.check);
      plain[src.key] = await answer(src, sql);
    }
    const table = SOURCES[3];
    for (const src of SOURCES.slice(0, 3)) {
      for (const s of table.setup) await conn.run(s);
      const status = await judgeAnswers(form, { ref: checked.table, got: checked[src.key] }, { ref: plain.table, got: plain[src.key] },
        (rows) => missingRows(conn, form.full, checked[src.key].types, rows));
      expect(status, `${src.key}: ${sql}`).toMatch(/^(same|ties)$/);
    }
  });

  it('the comparison tells ties from wrong answers', async () => {
    for (const s of SOURCES[3].setup) await conn.run(s);
    // Users by hits, cut by the LIMIT inside the highest count that two users share: another user
    // of that count is a valid last row; the rows above it are not exchangeable.
    const [t, above] = (await conn.runAndReadAll(`SELECT c, (SELECT count(*) FROM (SELECT count(*) AS c2 FROM hits GROUP BY UserID) WHERE c2 > c)
      FROM (SELECT count(*) AS c FROM hits GROUP BY UserID) GROUP BY c HAVING count(*) >= 2 ORDER BY c DESC LIMIT 1`)).getRowsJS()[0].map(Number);
    expect(above).toBeGreaterThan(0);
    const form = checkForm(`SELECT UserID, COUNT(*) AS c FROM hits GROUP BY UserID ORDER BY c DESC LIMIT ${above + 1}`);
    expect(form.keys).toBe(1);
    const ref = answerOf(await conn.runAndReadAll(form.check));
    const member = (rows: (string | null)[][]) => missingRows(conn, form.full, ref.types, rows);
    expect(await compareAnswers(form, ref, ref, member)).toBe('same');
    const last = ref.rows[above][2];
    expect(last).toBe(String(t));
    const others = answerOf(await conn.runAndReadAll(`SELECT UserID, COUNT(*) AS c, c AS __k0 FROM hits GROUP BY UserID HAVING c = ${last}`));
    others.rows = others.rows.filter((r) => r[0] !== ref.rows[above][0]);
    expect(others.rows.length).toBeGreaterThan(0);
    const swapped = { ...ref, rows: [...ref.rows.slice(0, above), others.rows[0]] };
    expect(await compareAnswers(form, ref, swapped, member)).toBe('ties');
    // A user that is not a row of the query, with the tied count.
    const invented = { ...ref, rows: [...ref.rows.slice(0, above), ['12345', last, last]] };
    expect(await compareAnswers(form, ref, invented, member)).toMatch(/^DIFFERS/);
    // A wrong count.
    const counted = { ...ref, rows: ref.rows.map((r, i) => (i === 0 ? [r[0], String(Number(r[1]) + 1), String(Number(r[2]) + 1)] : r)) };
    expect(await compareAnswers(form, ref, counted, member)).toMatch(/^DIFFERS/);
    // Rows of a count the LIMIT holds whole may not be exchanged.
    const moved = { ...ref, rows: ref.rows.map((r, i) => (i === 0 ? [String(BigInt(r[0]!) + 1n), r[1], r[2]] : r)) };
    expect(await compareAnswers(form, ref, moved, member)).toMatch(/^DIFFERS/);
  });
});
