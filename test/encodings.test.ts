// The decode-speed encodings (issue 14): ALP for decimal-like floats with exceptions, the
// "must save 10%" rule that keeps near-full-width integers plain, bit-packed booleans,
// zero-copy plain values, and word-wise validity. Seeded data; every answer is compared with
// DuckDB's own on the same rows, bit for bit for floats.
import type { DuckDBConnection } from '@duckdb/node-api';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDb, scalar, show, sqlString, tempDir } from './helpers';
import { Bytes, forge, packed, TYPE } from './workers/vtx-forge';

describe('encodings chosen for decode speed', () => {
  const dir = tempDir('vtx-enc-');
  let conn: DuckDBConnection;
  let n = 0;

  beforeAll(async () => {
    ({ conn } = await openDb());
    await conn.run('SET vortex_pushdown = false');
  });

  /** Writes `sql` (columns of any type) to .vtx and checks the scan returns exactly the same rows, in order, bit for bit. */
  async function roundTrip(sql: string, options = 'ROW_GROUP_SIZE 1000'): Promise<string> {
    const file = join(dir, `t${n++}.vtx`);
    await conn.run(`CREATE OR REPLACE TABLE src AS SELECT row_number() OVER () AS rn, * FROM (${sql})`);
    await conn.run(`COPY (SELECT * EXCLUDE (rn) FROM src ORDER BY rn) TO ${sqlString(file)} (FORMAT vortex, ${options})`);
    const cols = (await conn.runAndReadAll(`SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'src' AND column_name <> 'rn'`)).getRowsJS() as string[][];
    // Floats compared by their shortest round-trip text and sign: -0.0 vs 0.0 counts.
    const bits = cols.map(([c, t]) => (t === 'DOUBLE' || t === 'FLOAT' ? `CASE WHEN isnan(${c}) THEN 'nan' ELSE ${c}::VARCHAR || signbit(${c})::VARCHAR END AS ${c}` : c));
    const left = `SELECT row_number() OVER () AS rn, ${bits.join(', ')} FROM vortex_scan(${sqlString(file)})`;
    const right = `SELECT rn, ${bits.join(', ')} FROM src`;
    expect(await scalar(conn, `SELECT count(*) FROM ((${left}) EXCEPT ALL (${right}))`)).toBe(0n);
    expect(await scalar(conn, `SELECT count(*) FROM ((${right}) EXCEPT ALL (${left}))`)).toBe(0n);
    expect(await scalar(conn, `SELECT count(*) FROM vortex_scan(${sqlString(file)})`)).toBe(await scalar(conn, 'SELECT count(*) FROM src'));
    return file;
  }
  const encodings = async (file: string) =>
    ((await conn.runAndReadAll(`SELECT list(DISTINCT encoding ORDER BY encoding) FROM vortex_metadata(${sqlString(file)})`)).getRowsJS()[0][0] as string[]);
  const version = (file: string) => {
    const b = readFileSync(file);
    const len = b.readUInt32LE(b.length - 12);
    return b[b.length - 12 - len];
  };

  it('ALP stores prices and sensor readings, DOUBLE and FLOAT, bit for bit', async () => {
    const f = await roundTrip(`SELECT ((hash(i * 7) % 1000000) / 100)::DOUBLE AS p,
        round(20 + 5 * sin(i / 50) + (hash(i) % 100) / 1000, 2)::FLOAT AS s,
        ((hash(i) % 100000)::BIGINT - 50000) / 1000 AS neg FROM range(20000) r(i)`);
    expect(await encodings(f)).toEqual(['alp']);
    expect(version(f)).toBe(4); // float columns: exact zone sums (version 4, which also reads ALP)
    const stats = (await conn.runAndReadAll(`SELECT sum(stored_bytes) FROM vortex_metadata(${sqlString(f)}) WHERE column_name = 'p'`)).getRowsJS()[0][0] as bigint;
    expect(Number(stats)).toBeLessThan(20000 * 8 * 0.6);
  });

  it('ALP exceptions: NaN, ±inf, -0.0, extremes, subnormals, values with too many digits, NULLs', async () => {
    const specials = ["'nan'", "'-nan'", "'inf'", "'-inf'", '-0.0', '0.0', '1.7976931348623157e308', '-1.7976931348623157e308', '4.9e-324', '2.2250738585072014e-308', '9007199254740993', '4503599627370496', '-4503599627370497', '0.1', '1e-18', '123456789.123', 'pi()'];
    const fspecials = ["'nan'", "'inf'", "'-inf'", '-0.0', '3.4028235e38', '-3.4028235e38', '1.4e-45', '16777217', '16777216', '0.1', '1e-10', 'pi()'];
    for (const [type, list] of [['DOUBLE', specials], ['FLOAT', fspecials]] as const) {
      // Exceptions sprinkled among decimals, at the first row, the last row, and in runs.
      const f = await roundTrip(`SELECT CASE WHEN i % 97 = 0 OR i = 1999 OR i BETWEEN 500 AND 520 THEN ([${list.join(', ')}])[1 + (i % ${list.length})]::${type}
          WHEN i % 13 = 5 THEN NULL ELSE ((hash(i) % 100000) / 100)::${type} END AS v FROM range(2000) r(i)`);
      expect(await encodings(f)).toContain('alp');
      // Statistics agree with the data (pushdown on vs off).
      await conn.run('SET vortex_pushdown = true');
      const pushed = await conn.runAndReadAll(`SELECT count(v), min(v), max(v) FROM vortex_scan(${sqlString(f)})`);
      await conn.run('SET vortex_pushdown = false');
      const scanned = await conn.runAndReadAll(`SELECT count(v), min(v), max(v) FROM vortex_scan(${sqlString(f)})`);
      expect(show(pushed.getRowsJS())).toBe(show(scanned.getRowsJS()));
    }
  });

  it('all-NULL zones, single rows, one-row zones, a zone of only exceptions', async () => {
    await roundTrip(`SELECT CASE WHEN i < 1000 THEN NULL ELSE (i / 100)::DOUBLE END AS d, CASE WHEN i >= 1000 THEN NULL ELSE (i / 10)::FLOAT END AS f,
        CASE WHEN i % 3 = 0 THEN NULL ELSE i % 2 = 0 END AS b FROM range(3000) r(i)`);
    await roundTrip(`SELECT 1.25::DOUBLE AS d, -0.0::FLOAT AS f, true AS b`);
    await roundTrip(`SELECT (i / 4)::DOUBLE AS d, (i / 8)::FLOAT AS f, i % 2 = 0 AS b FROM range(5) r(i)`, 'ROW_GROUP_SIZE 1');
    await roundTrip(`SELECT (['nan', 'inf', '-inf', '-0.0'])[1 + i % 4]::DOUBLE AS d FROM range(100) r(i)`);
    await roundTrip(`SELECT random()::DOUBLE * 0 + i / 7.0 AS d FROM range(3000) r(i)`);
  });

  it('random property: decimals of every exponent, mixed with noise, both widths, seeded', async () => {
    await conn.run('SELECT setseed(0.14)');
    for (let e = 0; e <= 12; e += 3) {
      const f = await roundTrip(`SELECT CASE WHEN random() < 0.03 THEN random() * 1e6 WHEN random() < 0.02 THEN NULL
          ELSE round((random() - 0.5) * 1e${Math.min(e + 4, 15)}) / 1e${e} END::DOUBLE AS d,
          CASE WHEN random() < 0.03 THEN random() ELSE round((random() - 0.5) * 1e${Math.min(e + 2, 7)}) / 1e${Math.min(e, 10)} END::FLOAT AS f
          FROM range(5000)`, 'ROW_GROUP_SIZE 1024');
      expect(await encodings(f)).toContain('alp');
    }
  });

  it('does not pay to bit-pack 62 of 64 bits: random 62-bit integers stay plain; narrow ones are packed', async () => {
    const f = await roundTrip(`SELECT (hash(i) >> 2)::BIGINT AS r, (hash(i) % 1000)::INTEGER AS small FROM range(5000) r(i)`, 'ROW_GROUP_SIZE 5000, SKETCHES false');
    const rows = (await conn.runAndReadAll(`SELECT column_name, encoding FROM vortex_metadata(${sqlString(f)}) ORDER BY column_index`)).getRowsJS();
    expect(rows).toEqual([['r', 'plain'], ['small', 'for+bitpack']]);
    expect(version(f)).toBe(1); // no ALP, no sketches: older readers can still read it
  });

  it('booleans are packed one bit per row and decode at every bit position, with NULLs', async () => {
    const f = await roundTrip(`SELECT hash(i * 13) % 2 = 0 AS b, CASE WHEN i % 5 = 1 THEN NULL ELSE i % 3 = 0 END AS bn FROM range(10007) r(i)`, 'ROW_GROUP_SIZE 4099');
    expect(await encodings(f)).toEqual(['for+bitpack']);
  });

  it('fixed-width plain values of every width, at every zone and vector boundary, with validity words', async () => {
    await roundTrip(`SELECT CASE WHEN i % 67 = 0 OR (i BETWEEN 2040 AND 2060) THEN NULL ELSE hash(i) END AS u64,
        (hash(i) >> 1)::BIGINT AS i64, hash(i)::UHUGEINT * hash(i + 1) AS u128, (hash(i) % 4294967296)::UINTEGER AS u32,
        (hash(i) % 65536)::USMALLINT AS u16, (hash(i) % 256)::UTINYINT AS u8, hash(i)::DOUBLE / 3 AS d, (hash(i) / 7)::FLOAT AS f,
        ((hash(i) % 10000000000) / 100)::DECIMAL(10, 2) AS dec FROM range(7000) r(i)`, 'ROW_GROUP_SIZE 4097');
  });

  it('dictionary-encoded strings reach DuckDB as dictionary vectors: NULLs, long strings, grouping, filters, joins', async () => {
    const f = await roundTrip(`SELECT CASE WHEN i % 7 = 2 THEN NULL ELSE 'value_' || (hash(i * 5) % 31) END AS s,
        CASE WHEN i % 5 = 0 THEN repeat('long string ', 3) || (i % 4) ELSE 'é' || (i % 3) END AS l,
        (['a', 'b'])[1 + (i % 2)] AS two FROM range(9000) r(i)`, 'ROW_GROUP_SIZE 4100');
    expect(await encodings(f)).toEqual(['dictionary']);
    const scan = `vortex_scan(${sqlString(f)})`;
    for (const q of [
      'SELECT s, l, count(*), min(two), max(two) FROM $T GROUP BY ALL ORDER BY ALL',
      "SELECT count(*), count(s), min(s), max(s), min(l), max(l) FROM $T WHERE s <> 'value_3' OR l LIKE 'long%'",
      'SELECT a.s, count(*) FROM $T a JOIN (SELECT DISTINCT s FROM $T) b USING (s) GROUP BY a.s ORDER BY a.s',
      'SELECT upper(s) || l AS x, count(*) FROM $T GROUP BY x ORDER BY x',
    ]) {
      const got = await conn.runAndReadAll(q.replaceAll('$T', scan));
      const want = await conn.runAndReadAll(q.replaceAll('$T', '(SELECT * EXCLUDE (rn) FROM src)'));
      expect(show(got.getRowsJS())).toBe(show(want.getRowsJS()));
    }
  });

  it('hostile ALP segments are refused naming the file: exponent, exception order and range, count', async () => {
    const body = (e: number, positions: number[], k = positions.length) => {
      const w = new Bytes().u8(0).u8(5).u8(e).int(0n, 8);
      packed(w, [1n, 2n, 3n, 4n], 3);
      w.varint(k);
      for (const p of positions) w.u32(p);
      for (let j = 0; j < positions.length; j++) w.f64(1.5);
      return w.done();
    };
    const mk = (b: Uint8Array) => {
      const path = join(dir, `h${n++}.vtx`);
      const stats = { rows: 4, min: new Bytes().f64(0.1).done(), max: new Bytes().f64(1.5).done(), floatSum: 0.1 + 0.2 + 1.5 + 0.4 };
      writeFileSync(path, forge([{ name: 'c', type: TYPE.DOUBLE }], [{ rows: 4, chunks: [{ body: b, stats }] }]));
      return path;
    };
    const ok = mk(body(1, [2]));
    expect((await conn.runAndReadAll(`SELECT c FROM vortex_scan(${sqlString(ok)})`)).getRowsJS()).toEqual([[0.1], [0.2], [1.5], [0.4]]);
    for (const [b, reason] of [
      [body(19, []), /exponent/],
      [body(1, [2, 2]), /exception positions/],
      [body(1, [3, 1]), /exception positions/],
      [body(1, [4]), /exception positions/],
      [body(1, [], 5), /exceptions|truncated|declares/],
    ] as const) {
      const p = mk(b);
      const err = await conn.run(`SELECT * FROM vortex_scan(${sqlString(p)})`).then(() => null, (e: Error) => e);
      expect(err?.message).toContain(`vortex: file "${p}" is not a valid .vtx file`);
      expect(err?.message).toMatch(reason);
    }
    // ALP on an integer column is corruption.
    const w = new Bytes().u8(0).u8(5).u8(1).int(0n, 8);
    packed(w, [1n, 2n, 3n, 4n], 3);
    w.varint(0);
    const path = join(dir, `h${n++}.vtx`);
    writeFileSync(path, forge([{ name: 'c', type: TYPE.BIGINT }], [{ rows: 4, chunks: [{ body: w.done(), stats: { rows: 4, min: new Bytes().int(1n, 8).done(), max: new Bytes().int(4n, 8).done(), intSum: 10n } }] }]));
    const err = await conn.run(`SELECT * FROM vortex_scan(${sqlString(path)})`).then(() => null, (e: Error) => e);
    expect(err?.message).toMatch(/ALP encoding used for a BIGINT column/);
  });
});
