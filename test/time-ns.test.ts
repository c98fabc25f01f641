// TIME_NS (nanoseconds since midnight), stored as itself since format version 6: written, read
// back, aggregated (pushed and not) and filtered exactly as the DuckDB table answers. (DuckDB's
// Parquet writer writes TIME_NS as VARCHAR.) Older versions' files cannot declare it, and a value
// outside 00:00:00 to 24:00:00 is refused as for TIME.
import type { DuckDBConnection } from '@duckdb/node-api';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, isPushed, openDb, scalar, sqlString, tempDir } from './helpers';
import { forge, intStats, le, plainFixed, TYPE } from './workers/vtx-forge';

const dir = tempDir('vtx-time-ns-');
const file = join(dir, 't.vtx');
let conn: DuckDBConnection;

beforeAll(async () => {
  ({ conn } = await openDb());
  // The pushed paths themselves are under test: pushed wherever the rules allow, even where the
  // cost model would leave a distinct count over list-less zones to DuckDB.
  await conn.run('SET vortex_pushdown_cost_based = false');
  // Nanosecond values (not only whole microseconds), both ends of the day, NULLs, repeats, and
  // a column whose zones span a few nanoseconds.
  await conn.run(`CREATE TABLE t AS SELECT i, i % 3 AS g,
      CASE WHEN i % 11 = 0 THEN NULL
           WHEN i = 5 THEN '24:00:00'::TIME_NS
           WHEN i = 6 THEN '00:00:00'::TIME_NS
           WHEN i % 13 = 0 THEN '07:30:00'::TIME_NS
           ELSE printf('%02d:%02d:%02d.%09d', i % 24, i % 60, (i * 7) % 60, (i * 7919) % 1000000000)::TIME_NS END AS tn,
      printf('00:00:00.%09d', i % 50)::TIME_NS AS narrow
    FROM range(5000) r(i)`);
  await conn.run(`COPY t TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 700)`);
});

describe('TIME_NS', () => {
  it('round-trips every value, with nanoseconds, and marks the file as format version 6', async () => {
    const scan = `vortex_scan(${sqlString(file)})`;
    // As text: the Node client of DuckDB 1.4 cannot read TIME_NS values themselves.
    const all = (from: string) => `SELECT i, g, tn::VARCHAR, narrow::VARCHAR FROM ${from} ORDER BY i`;
    expect(await answerText(conn, all(scan))).toBe(await answerText(conn, all('t')));
    expect(await scalar(conn, `SELECT count(*) FROM t WHERE length(split_part(tn::VARCHAR, '.', 2)) > 6`)).toBeGreaterThan(1000n);
    expect(await answerText(conn, `SELECT DISTINCT format_version FROM vortex_metadata(${sqlString(file)})`)).toContain('6');
    // A file without TIME_NS stays readable by older readers.
    const other = join(dir, 'other.vtx');
    await conn.run(`COPY (SELECT i FROM t) TO ${sqlString(other)} (FORMAT vortex, SKETCHES false)`);
    expect(Number(await scalar(conn, `SELECT DISTINCT format_version FROM vortex_metadata(${sqlString(other)})`))).toBeLessThan(6);
  });

  it('aggregates as the DuckDB table does, pushed and not', async () => {
    const scan = `vortex_scan(${sqlString(file)})`;
    const aggregates = ['min(tn)', 'max(tn)', 'count(tn)', 'count(DISTINCT tn)', 'approx_count_distinct(tn)', 'min(narrow)', 'max(narrow)', 'count(DISTINCT narrow)', 'approx_count_distinct(narrow)'];
    for (const a of aggregates) {
      for (const tail of ['', ' WHERE i > 1234', ' GROUP BY g ORDER BY g']) {
        const q = (from: string) => `SELECT (${a})::VARCHAR FROM ${from}${tail}`;
        const expected = await answerText(conn, q('t'));
        await conn.run('SET vortex_pushdown = true');
        expect(await answerText(conn, q(scan)), `${q('F')} (pushdown on)`).toBe(expected);
        await conn.run('SET vortex_pushdown = false');
        expect(await answerText(conn, q(scan)), `${q('F')} (pushdown off)`).toBe(expected);
      }
    }
    await conn.run('SET vortex_pushdown = true');
    for (const a of ['min(tn)', 'max(tn)', 'count(DISTINCT narrow)', 'approx_count_distinct(tn)']) {
      expect(await isPushed(conn, `SELECT ${a} FROM ${scan}`), a).toBe(true);
    }
  });

  it('filters as the DuckDB table does', async () => {
    for (const where of [
      `tn > '12:00:00.000000001'::TIME_NS`,
      `tn = (SELECT tn FROM t WHERE i = 1001)`,
      `tn BETWEEN '01:02:03.5'::TIME_NS AND '05:00:00'::TIME_NS`,
      `tn IS NULL`,
      `tn IN ('24:00:00'::TIME_NS, '00:00:00'::TIME_NS)`,
      `narrow >= '00:00:00.000000049'::TIME_NS`,
    ]) {
      const q = (from: string) => `SELECT i, tn::VARCHAR FROM ${from} WHERE ${where} ORDER BY i`;
      const expected = await answerText(conn, q('t'));
      expect(await answerText(conn, q(`vortex_scan(${sqlString(file)})`)), where).toBe(expected);
    }
  });

  it('refuses a TIME_NS column in a file older than version 6, and values outside the day', async () => {
    const refuses = async (path: string, reason: RegExp) => {
      const msg = (await answerText(conn, `SELECT * FROM vortex_scan(${sqlString(path)})`)).split('\n')[0];
      expect(msg).toContain(`vortex: file "${path}" is not a valid .vtx file: `);
      expect(msg).toMatch(reason);
    };
    const values = [1n, 86_400_000_000_000n];
    const column = [{ name: 'c', type: TYPE.TIME_NS }];
    const zones = (v: bigint[]) => [{ rows: v.length, chunks: [{ body: plainFixed(v, 8), stats: intStats(v, 8) }] }];
    const good = join(dir, 'forged-good.vtx');
    writeFileSync(good, forge(column, zones(values), 6));
    expect(await answerText(conn, `SELECT c::VARCHAR FROM vortex_scan(${sqlString(good)})`)).toContain('24:00:00');
    const old = join(dir, 'forged-v5.vtx');
    writeFileSync(old, forge(column, zones(values), 5));
    await refuses(old, /a version 5 file declares a TIME_NS column/);
    const late = join(dir, 'forged-late.vtx');
    const bad = [1n, 86_400_000_000_001n];
    writeFileSync(late, forge(column, [{ rows: 2, chunks: [{ body: plainFixed(bad, 8), stats: { rows: 2, min: le(1n, 8), max: le(1n, 8), intSum: 2n } }] }], 6));
    await refuses(late, /holds a TIME_NS outside 00:00:00 to 24:00:00/);
    const early = join(dir, 'forged-early.vtx');
    writeFileSync(early, forge(column, zones([-1n, 5n]), 6));
    await refuses(early, /TIME_NS|outside its domain/);
  });
});
