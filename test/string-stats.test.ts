import type { DuckDBConnection } from '@duckdb/node-api';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, isPushed, openDb, sqlString, tempDir } from './helpers';

// The writer's string min/max per zone compares eight-byte prefixes first and whole strings only
// where those tie. Strings here share long prefixes, differ past byte 8, end early, hold NUL and
// bytes above 0x7f: the pushed min/max per zone (from statistics) must be DuckDB's.

let conn: DuckDBConnection;
let src: string;

beforeAll(async () => {
  ({ conn } = await openDb());
  // Mostly one eight-byte prefix, then tails that decide the order; some shorter strings.
  await conn.run(`CREATE TABLE s AS SELECT i, CASE WHEN hash(i * 7) % 23 = 0 THEN NULL ELSE
      ['abcdefgh', 'abcdefgh', 'abcdefgh', 'abcdefgh', 'ab', '', 'abcdefgi', 'abcdefg'][1 + (hash(i * 3) % 8)::INTEGER] ||
      list_reduce(list_transform(range((hash(i) % 4)::INTEGER + 1),
        k -> ['', 'a', 'b', chr(0), 'é', chr(127), 'z'][1 + (hash(i * 31 + k) % 7)::INTEGER]), (x, y) -> x || y)
      END AS v
    FROM range(20000) r(i)`);
  const file = join(tempDir('vtx-sstats-'), 's.vtx');
  await conn.run(`COPY (SELECT * FROM s ORDER BY i) TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 100)`);
  src = `vortex_scan(${sqlString(file)})`;
});

describe('string statistics', () => {
  it('min and max per zone and overall equal DuckDB\'s', async () => {
    const perZone = (from: string) => `SELECT i // 1000 AS z, min(v), max(v), count(v) FROM ${from} GROUP BY z ORDER BY z`;
    expect(await isPushed(conn, perZone(src))).toBe(true);
    expect(await answerText(conn, perZone(src))).toBe(await answerText(conn, perZone('s')));
    // Zones are skipped, or answered whole, by their min and max under these filters.
    for (const where of ["v >= 'é'", 'v < chr(1)', "v = ''", "v > 'abcdefgh' || chr(127)", "v <= 'abcdefgh'", "v BETWEEN 'abcdefgh' AND 'abcdefgha'", "v > 'z'"]) {
      const q = (from: string) => `SELECT count(*), count(v), min(i), max(i) FROM ${from} WHERE ${where}`;
      expect(await answerText(conn, q(src)), where).toBe(await answerText(conn, q('s')));
      const scan = (from: string) => `SELECT i FROM ${from} WHERE ${where} ORDER BY i`;
      expect(await answerText(conn, scan(src)), where).toBe(await answerText(conn, scan('s')));
    }
    const all = (from: string) => `SELECT min(v), max(v) FROM ${from}`;
    expect(await isPushed(conn, all(src))).toBe(true);
    expect(await answerText(conn, all(src))).toBe(await answerText(conn, all('s')));
  });
});

describe('cut string bounds in vortex_metadata', () => {
  it('a bound cut inside a character shows up to the last whole one', async () => {
    // Bounds longer than the statistics keep are cut at a byte count: with two-, three- and
    // four-byte characters after an odd start, the cut falls inside one for some of them.
    const dir = tempDir('vtx-cutbounds-');
    for (const ch of ['я', '€', '😀']) {
      for (const lead of ['a', 'ab', 'abc']) {
        const value = lead + ch.repeat(40);
        const file = join(dir, `${lead}-${ch.codePointAt(0)}.vtx`);
        await conn.run(`COPY (SELECT ${sqlString(value)} AS v) TO ${sqlString(file)} (FORMAT vortex)`);
        const rows = (await conn.runAndReadAll(`SELECT min, max, min_max_exact FROM vortex_metadata(${sqlString(file)})`)).getRowsJS();
        const [min, max, exact] = rows[0] as [string, string, boolean];
        expect(exact).toBe(false);
        for (const bound of [min, max]) {
          expect(value.startsWith(bound), `${bound} of ${value}`).toBe(true);
          // Only what the cut took is dropped: less than one character.
          expect(Buffer.byteLength(value.slice(0, bound.length + ch.length))).toBeGreaterThan(64);
        }
      }
    }
  });
});
