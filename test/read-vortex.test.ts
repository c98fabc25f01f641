// read_vortex: vortex_scan under the name Vortex's own DuckDB extension gives it (as read_parquet
// and parquet_scan are one function): the same answers, the same pushdown, the same options.
import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { answerText, explain, isPushed, openDb, sqlString, tempDir } from './helpers';

const dir = tempDir('vtx-read-vortex-');
let conn: DuckDBConnection;

beforeAll(async () => {
  ({ conn } = await openDb());
  await conn.run(`COPY (SELECT i % 4 AS p, i AS x, i * 0.5 AS d, 'u' || (i % 97) AS s FROM range(50000) r(i))
    TO ${sqlString(`${dir}/parts`)} (FORMAT vortex, PARTITION_BY (p), ROW_GROUP_SIZE 4096)`);
});

const QUERIES = [
  (f: string) => `SELECT count(*), sum(x), min(s), max(x) FROM ${f}`,
  (f: string) => `SELECT p, count(*), sum(x), count(DISTINCT s) FROM ${f} GROUP BY p ORDER BY p`,
  (f: string) => `SELECT count(*), sum(x) FROM ${f} WHERE x BETWEEN 100 AND 20000 AND s LIKE '%7%'`,
  (f: string) => `SELECT * FROM ${f} ORDER BY x DESC LIMIT 3`,
  (f: string) => `SELECT date_trunc('hour', TIMESTAMP '2024-01-01' + to_seconds(x)) AS h, count(*) FROM ${f} GROUP BY h ORDER BY h LIMIT 5`,
];

describe('read_vortex', () => {
  it('answers and pushes as vortex_scan, with its options', async () => {
    for (const options of ['', ', filename = true', ', union_by_name = true', ', file_row_number = true']) {
      const from = (fn: string) => `${fn}(${sqlString(`${dir}/parts/**/*.vtx`)}${options})`;
      for (const q of QUERIES) {
        for (const pushdown of [true, false]) {
          await conn.run(`SET vortex_pushdown = ${pushdown}`);
          expect(await answerText(conn, q(from('read_vortex'))), `${options}: ${q('F')}`).toBe(await answerText(conn, q(from('vortex_scan'))));
        }
        await conn.run('SET vortex_pushdown = true');
        expect(await isPushed(conn, q(from('read_vortex'))), `${options}: ${q('F')}`).toBe(await isPushed(conn, q(from('vortex_scan'))));
      }
    }
    // Pushed indeed, not merely as unpushed as vortex_scan.
    expect(await isPushed(conn, QUERIES[0](`read_vortex(${sqlString(`${dir}/parts/**/*.vtx`)})`))).toBe(true);
    expect(await explain(conn, QUERIES[1](`read_vortex(${sqlString(`${dir}/parts/**/*.vtx`)})`))).toContain('VORTEX');
  });

  it('takes a list of files and works in prepared statements', async () => {
    const files = `[${sqlString(`${dir}/parts/p=0/data_0.vtx`)}, ${sqlString(`${dir}/parts/p=1/data_0.vtx`)}]`;
    expect(await answerText(conn, `SELECT count(*), sum(x) FROM read_vortex(${files})`)).toBe(await answerText(conn, `SELECT count(*), sum(x) FROM vortex_scan(${files})`));
    const prepared = await conn.prepare(`SELECT count(*), sum(x) FROM read_vortex(${sqlString(`${dir}/parts/**/*.vtx`)}) WHERE x > $1`);
    prepared.bindInteger(1, 40000);
    const got = (await prepared.runAndReadAll()).getRowsJS();
    expect(got).toEqual((await conn.runAndReadAll(`SELECT count(*), sum(x) FROM vortex_scan(${sqlString(`${dir}/parts/**/*.vtx`)}) WHERE x > 40000`)).getRowsJS());
  });

  it('names the function the query called in its errors', async () => {
    const glob = sqlString(`${dir}/parts/**/*.vtx`);
    const error = async (sql: string) => {
      try {
        await conn.run(sql);
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error(`no error from ${sql}`);
    };
    for (const fn of ['read_vortex', 'vortex_scan']) {
      const other = fn === 'read_vortex' ? 'vortex_scan' : 'read_vortex';
      const unknown = await error(`SELECT * FROM ${fn}(${glob}, no_such_option = 1)`);
      expect(unknown).toContain(`Invalid named parameter "no_such_option" for function ${fn}`); // DuckDB's own check
      expect(unknown).not.toContain(other);
      const clash = await error(`SELECT * FROM ${fn}(${glob}, filename = 'p')`);
      expect(clash).toMatch(new RegExp(`${fn}: hive partition "p" has the name of the filename column`));
      expect(clash).not.toContain(other);
    }
  });
});
