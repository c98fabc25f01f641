import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDb, rows, show, sqlString, tempDir } from './helpers';

// `contains`, `prefix`, `suffix`, LIKE with `%` only and their NOTs, over a plain (not
// dictionary-coded) VARCHAR column, are evaluated by the reader's own matcher: a `%x%` searches
// the segment's bytes as one run, so a match that straddles two rows must count for neither. The
// answers must be DuckDB's on its own table, with the reader's expression filters on and off.
// Strings come from a four-letter alphabet with a two-byte and a three-byte character, so that
// matches are frequent, run across row ends, and meet multi-byte characters.

const ALPHABET = ['a', 'b', 'ab', 'é', '€', 'b a'];
const dir = tempDir('vtx-strmatch-');
let conn: DuckDBConnection;
let n = 0;
let matched = 0;

beforeAll(async () => {
  ({ conn } = await openDb());
});

const pieceArb = fc.array(fc.constantFrom('a', 'b', 'é', '€', ' '), { minLength: 0, maxLength: 3 }).map((p) => p.join(''));
const patternArb = fc.oneof(
  pieceArb.map((p) => ({ sql: (s: string) => `contains(${s}, ${sqlString(p)})` })),
  pieceArb.map((p) => ({ sql: (s: string) => `prefix(${s}, ${sqlString(p)})` })),
  pieceArb.map((p) => ({ sql: (s: string) => `suffix(${s}, ${sqlString(p)})` })),
  pieceArb.map((p) => ({ sql: (s: string) => `starts_with(${s}, ${sqlString(p)})` })),
  fc.tuple(fc.boolean(), fc.array(pieceArb, { minLength: 1, maxLength: 4 }), fc.boolean(), fc.boolean()).map(([not, parts, lead, trail]) => {
    const pattern = `${lead ? '%' : ''}${parts.join('%')}${trail ? '%' : ''}`;
    return { sql: (s: string) => `${s} ${not ? 'NOT ' : ''}LIKE ${sqlString(pattern)}` };
  }),
  // Left to DuckDB's executor: `_`, an escape, ILIKE.
  pieceArb.map((p) => ({ sql: (s: string) => `${s} LIKE ${sqlString(`%${p}_%`)}` })),
  pieceArb.map((p) => ({ sql: (s: string) => `${s} ILIKE ${sqlString(`%${p.toUpperCase()}%`)}` })),
);

async function answer(sql: string): Promise<string> {
  return (await rows(conn, sql)).map((r) => r.map(show).join('|')).join('\n');
}

describe('string matching in the reader equals DuckDB', () => {
  it('keeps plain string segments plain (the matcher, not the per-entry path, is under test)', async () => {
    await conn.run(`CREATE OR REPLACE TABLE p AS SELECT i, 'k' || i::VARCHAR || repeat('ab', (i % 7)::INTEGER) AS s FROM range(5000) r(i)`);
    const f = join(dir, 'plain.vtx');
    await conn.run(`COPY p TO ${sqlString(f)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
    const encodings = (await rows(conn, `SELECT DISTINCT encoding FROM vortex_metadata(${sqlString(f)}) WHERE column_name = 's'`)).map((r) => r[0]);
    expect(encodings).toEqual(['plain']);
    for (const where of ["s LIKE '%9ab%'", "contains(s, 'bk')", "NOT contains(s, '7a')", "s LIKE 'k1%b'", "suffix(s, 'bab')"]) {
      const vtx = `SELECT count(*), sum(i) FROM vortex_scan(${sqlString(f)}) WHERE ${where}`;
      expect(await answer(vtx), where).toBe(await answer(`SELECT count(*), sum(i) FROM p WHERE ${where}`));
    }
  });

  it('random patterns over random strings, NULLs and empty strings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fc.array(fc.constantFrom(...ALPHABET), { minLength: 0, maxLength: 8 }).map((p) => p.join('')), { freq: 8 }), { minLength: 20, maxLength: 400 }),
        fc.array(patternArb, { minLength: 1, maxLength: 2 }),
        fc.integer({ min: 16, max: 300 }),
        async (values, patterns, zone) => {
          const id = n++;
          // Most values made unique by their row number in the alphabet's letters (so that segments
          // are not dictionary-coded, and the suffix itself takes part in matches).
          await conn.run(`CREATE OR REPLACE TABLE t AS SELECT i, CASE WHEN v IS NULL THEN NULL ELSE v || CASE WHEN i % 3 = 0 THEN '' ELSE translate(bin(i), '01', 'ab') END END AS s
            FROM (SELECT unnest([${values.map((v) => (v === null ? 'NULL' : sqlString(v))).join(', ')}]::VARCHAR[]) AS v, unnest(range(${values.length})) AS i)`);
          const f = join(dir, `t${id}.vtx`);
          await conn.run(`COPY (SELECT * FROM t ORDER BY i) TO ${sqlString(f)} (FORMAT vortex, ROW_GROUP_SIZE ${zone})`);
          const where = patterns.map((p) => p.sql('s')).join(' AND ');
          const q = (from: string) => `SELECT count(*), list(i ORDER BY i) FROM ${from} WHERE ${where}`;
          const expected = await answer(q('t'));
          if (!expected.startsWith('0n|')) matched++;
          for (const on of [true, false]) {
            await conn.run(`SET vortex_pushdown = ${on}`);
            await conn.run(`SET vortex_pushdown_expressions = ${on}`);
            expect(await answer(q(`vortex_scan(${sqlString(f)})`)), `${where} (pushdown ${on})`).toBe(expected);
            expect(await answer(`SELECT i FROM vortex_scan(${sqlString(f)}) WHERE ${where} ORDER BY i`), where)
              .toBe(await answer(`SELECT i FROM t WHERE ${where} ORDER BY i`));
          }
        },
      ),
      { numRuns: 80, seed: 5718 },
    );
    // The property is only worth its runs where rows matched.
    expect(matched).toBeGreaterThan(40);
  });
});
