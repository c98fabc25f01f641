// Hostile files: correct checksums around content no honest writer produces. Checksums stop
// corruption (see corruption-sweep.test.ts); these files get past them, and must still end in a
// DuckDB error naming the file, never in a crash, a poisoned database or a value DuckDB could
// not hold. Built byte by byte with test/workers/vtx-forge.ts.
import type { DuckDBConnection } from '@duckdb/node-api';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDb, sqlString, tempDir } from './helpers';
import { Bytes, type Chunk, type Column, constantFixed, dictFixed, forFixed, forge, intStats, le, plainFixed, plainStrings, runsFixed, type Stats, TYPE } from './workers/vtx-forge';

describe('hostile .vtx files', () => {
  const dir = tempDir('vtx-hostile-');
  let conn: DuckDBConnection;
  let n = 0;

  beforeAll(async () => {
    ({ conn } = await openDb());
  });

  function file(columns: Column[], zones: Array<{ rows: number | bigint; chunks: Chunk[] }>): string {
    const path = join(dir, `f${n++}.vtx`);
    writeFileSync(path, forge(columns, zones));
    return path;
  }
  const one = (type: number, body: Uint8Array, stats: Stats, extra: Partial<Column> = {}) =>
    file([{ name: 'c', type, ...extra }], [{ rows: stats.rows, chunks: [{ body, stats }] }]);

  async function result(sql: string): Promise<unknown[][]> {
    return (await conn.runAndReadAll(sql)).getRowsJS() as unknown[][];
  }
  /** The statement fails with the reader's error for this file, naming it, with this reason. */
  async function refuses(sql: string, path: string, reason: RegExp): Promise<void> {
    const err = await conn.run(sql).then(() => null, (e: Error) => e);
    expect(err, `${sql} should fail`).not.toBeNull();
    const msg = err!.message.split('\n')[0];
    expect(msg).toContain(`vortex: file "${path}" is not a valid .vtx file: `);
    expect(msg).toMatch(reason);
  }
  const scan = (p: string) => `SELECT * FROM vortex_scan(${sqlString(p)})`;

  it('the forge writes files the reader accepts', async () => {
    const v = [1n, -2n, 3n];
    const p = one(TYPE.BIGINT, plainFixed(v, 8), intStats(v, 8));
    expect(await result(scan(p))).toEqual([[1n], [-2n], [3n]]);
    expect(await result(`SELECT sum(c), min(c), max(c) FROM vortex_scan(${sqlString(p)})`)).toEqual([[2n, -2n, 3n]]);
    const s = [Buffer.from('héllo'), Buffer.from('')];
    const q = one(TYPE.VARCHAR, plainStrings(s), { rows: 2, min: s[1], max: s[0] });
    expect(await result(scan(q))).toEqual([['héllo'], ['']]);
  });

  it('values outside what the type can hold: BOOLEAN 2, TIME beyond a day, TIME WITH TIME ZONE, DECIMAL digits', async () => {
    // TIME values like these crash DuckDB 1.4 or invalidate the database ("INTERNAL Error:
    // Information loss on integer cast") when they are printed.
    // [type, width, a value it may hold, one it may not, column extras]
    const cases: Array<[number, number, bigint, bigint, Partial<Column>]> = [
      [TYPE.BOOLEAN, 1, 1n, 2n, {}],
      [TYPE.TIME, 8, 86_400_000_000n, 86_400_000_001n, {}],
      [TYPE.TIME, 8, 0n, -1n, {}],
      [TYPE.TIME, 8, 5n, 1n << 62n, {}],
      [TYPE.DECIMAL, 2, 9999n, 10000n, { precision: 4, scale: 1 }],
      [TYPE.DECIMAL, 8, -(10n ** 18n) + 1n, -(10n ** 18n), { precision: 18, scale: 2 }],
      [TYPE.DECIMAL, 16, 10n ** 38n - 1n, 10n ** 38n, { precision: 38, scale: 0 }],
    ];
    for (const [type, width, good, bad, extra] of cases) {
      const sum = (v: bigint, k: bigint) => (width <= 8 ? v * k : undefined);
      // Honest-looking statistics (inside the domain), impossible data.
      const p = one(type, plainFixed([good, bad], width), { rows: 2, min: le(good, width), max: le(good, width), intSum: sum(good, 2n) }, extra);
      await refuses(scan(p), p, /holds (a boolean other than true or false|a TIME outside|a DECIMAL with more digits)/);
      // The impossible value as a statistic is refused before any data is read.
      const q = one(type, plainFixed([good], width), { rows: 1, min: le(bad, width), max: le(bad, width), intSum: sum(bad, 1n) }, extra);
      await refuses(`SELECT max(c) FROM vortex_scan(${sqlString(q)})`, q, /statistics of a .* column hold a value outside its domain/);
    }
    // The encoded forms. A constant, the run values or the dictionary, or the two ends of a
    // frame-of-reference range, all in the domain, prove every row to be (nothing is checked
    // per row); where they do not, each row is checked, so a frame or a dictionary wider than
    // the values it holds is no error and only a value out of the domain is.
    const rows = 130; // more than two 64-row blocks, and a partial one
    const bools = Array.from({ length: rows }, (_, i) => BigInt((i * 7) % 3 === 0 ? 1 : 0));
    const boolStats = { rows, min: le(0n, 1), max: le(1n, 1), intSum: bools.reduce((a, b) => a + b, 0n) };
    const accepted: Array<[string, Uint8Array]> = [
      ['1-bit frame', forFixed(0n, bools, 1)],
      ['2-bit frame, values 0/1', forFixed(0n, bools, 2)],
      ['frame from 1, deltas 0', forFixed(1n, bools.map(() => 0n), 1)],
      ['dictionary with an unused entry 7', dictFixed([0n, 1n, 7n], bools.map(Number), 1)],
      ['runs', runsFixed([1n, 0n], [1, rows], 1)],
    ];
    for (const [what, body] of accepted) {
      const p = one(TYPE.BOOLEAN, body, what === 'frame from 1, deltas 0' ? { rows, min: le(1n, 1), max: le(1n, 1), intSum: BigInt(rows) } : what === 'runs' ? { rows, min: le(0n, 1), max: le(1n, 1), intSum: 1n } : boolStats);
      const r = await result(`SELECT count(*), count(*) FILTER (WHERE c), count(*) FILTER (WHERE NOT c) FROM vortex_scan(${sqlString(p)})`);
      expect(r[0][0], what).toBe(BigInt(rows));
      expect((r[0][1] as bigint) + (r[0][2] as bigint), what).toBe(BigInt(rows));
    }
    const badBools = bools.map((v, i) => (i === rows - 1 ? 2n : v));
    const refused: Array<[string, Uint8Array]> = [
      ['2-bit frame holding a 2 in its last, partial block', forFixed(0n, badBools, 2)],
      ['frame from 2', forFixed(2n, bools.map(() => 0n), 1)],
      ['1-bit frame from 1 (values 1 and 2)', forFixed(1n, bools, 1)],
      ['constant 2', constantFixed(2n, 1)],
      ['dictionary entry 2 in use', dictFixed([0n, 2n], bools.map(Number), 1)],
      ['run of 2', runsFixed([1n, 2n], [1, rows], 1)],
    ];
    for (const [what, body] of refused) {
      const p = one(TYPE.BOOLEAN, body, boolStats);
      await refuses(scan(p), p, /holds a boolean other than true or false/).catch((e: Error) => {
        throw new Error(`${what}: ${e.message}`);
      });
    }
    // DECIMAL(4,1) in a frame: -999.9 to 999.9 spans 15 bits, whose range reaches 2276.8.
    const decs = [-9999n, 0n, 9999n, 1234n];
    const sign16 = 1n << 15n;
    const dec = (values: bigint[]) => forFixed(BigInt.asUintN(16, -9999n) ^ sign16, values.map((v) => v + 9999n), 15);
    const decStats = { rows: 4, min: le(-9999n, 2), max: le(9999n, 2), intSum: decs.reduce((a, b) => a + b, 0n) };
    const good = one(TYPE.DECIMAL, dec(decs), decStats, { precision: 4, scale: 1 });
    expect(await result(`SELECT sum(c)::VARCHAR, min(c)::VARCHAR, max(c)::VARCHAR FROM vortex_scan(${sqlString(good)})`)).toEqual([['123.4', '-999.9', '999.9']]);
    const bad = one(TYPE.DECIMAL, dec([-9999n, 0n, 10000n, 1234n]), decStats, { precision: 4, scale: 1 });
    await refuses(scan(bad), bad, /holds a DECIMAL with more digits than its precision/);
    for (const bits of [(1n << 64n) - 1n, (86_400_000_001n << 24n)]) {
      const p = one(TYPE.TIMETZ, plainFixed([bits], 8), { rows: 1 });
      await refuses(scan(p), p, /TIME WITH TIME ZONE outside its range/);
    }
    // The database is still usable afterwards.
    expect(await result('SELECT 42')).toEqual([[42]]);
  });

  it('VARCHAR that is not UTF-8, in data and in statistics', async () => {
    const bad = Buffer.from([0x61, 0xff, 0x62]);
    const p = one(TYPE.VARCHAR, plainStrings([Buffer.from('ok'), bad]), { rows: 2, min: Buffer.from('a'), max: Buffer.from('ok') });
    await refuses(scan(p), p, /not valid UTF-8/);
    const q = one(TYPE.VARCHAR, plainStrings([Buffer.from('ok')]), { rows: 1, min: bad, max: Buffer.from('ok') });
    await refuses(`SELECT min(c) FROM vortex_scan(${sqlString(q)})`, q, /statistics of a VARCHAR column are not valid UTF-8/);
    // The same bytes are fine in a BLOB.
    const r = one(TYPE.BLOB, plainStrings([bad]), { rows: 1, min: bad, max: bad });
    const [[blob]] = await result(`SELECT min(c) FROM vortex_scan(${sqlString(r)})`);
    expect(Buffer.from(blob as Uint8Array).equals(bad)).toBe(true);
  });

  it('statistics that contradict themselves', async () => {
    const v = [5n, 7n];
    const cases: Array<[Stats, RegExp]> = [
      [{ rows: 2, min: le(7n, 8), max: le(5n, 8), intSum: 12n }, /min > max/],
      [{ rows: 2, min: le(5n, 8), max: le(7n, 8), intSum: 15n }, /sum outside what their min and max allow/],
      [{ rows: 2, min: le(5n, 8), max: le(7n, 8) }, /lack the sum/],
      [{ rows: 2, nulls: 2, intSum: 3n }, /nonzero sum without values/],
      [{ rows: 2, nulls: 1, intSum: 0n }, /lack a min\/max/],
      [{ rows: 2, nulls: 3, intSum: 0n }, /inconsistent counts/],
      [{ rows: 2, nans: 1, min: le(5n, 8), max: le(7n, 8), intSum: 12n }, /NaN or infinity for a non-float/],
      [{ rows: 3, min: le(5n, 8), max: le(7n, 8), intSum: 18n }, /disagree with the zone's row count/],
    ];
    for (const [stats, reason] of cases) {
      const p = file([{ name: 'c', type: TYPE.BIGINT }], [{ rows: 2, chunks: [{ body: plainFixed(v, 8), stats }] }]);
      await refuses(`SELECT count(*) FROM vortex_scan(${sqlString(p)})`, p, reason);
    }
    const f = (x: number) => new Bytes().f64(x).done();
    const floats: Array<[Stats, RegExp]> = [
      [{ rows: 1, min: f(NaN), max: f(1), floatSum: 1 }, /invalid float min\/max/],
      [{ rows: 1, posInf: 1, min: f(1), max: f(1), floatSum: 0 }, /disagree about infinities/],
      [{ rows: 1, min: f(1), max: f(1), floatSum: NaN }, /NaN sum/],
    ];
    for (const [stats, reason] of floats) {
      const p = one(TYPE.DOUBLE, new Bytes().u8(0).u8(0).f64(1).done(), stats);
      await refuses(`SELECT count(*) FROM vortex_scan(${sqlString(p)})`, p, reason);
    }
    // Version 4: exact float sums. 1.0 is 2^1074 units of 2^-1074: word 33, bit 18.
    const one1 = { low: 33, words: [1 << 18] };
    const v4: Array<[number, Stats, RegExp]> = [
      [4, { rows: 1, min: f(1), max: f(1), exactSum: { low: 33, words: [5 << 18] } }, /sum outside what their min and max allow/],
      [4, { rows: 1, min: f(1), max: f(1), exactSum: { low: 32, words: [0, 1 << 18] } }, /not in its shortest form/],
      [4, { rows: 1, min: f(1), max: f(1), exactSum: { low: 66, words: [1, 1] } }, /exact float sum is malformed/],
      [4, { rows: 1, min: f(1), max: f(1), exactSum: { ...one1, negative: true } }, /sum outside what their min and max allow/],
      [4, { rows: 1, nulls: 1, exactSum: one1 }, /nonzero sum without values/],
      [4, { rows: 1, min: f(1), max: f(1), floatSum: 1 }, /version 4 file have a rounded float sum/],
      [1, { rows: 1, min: f(1), max: f(1), exactSum: one1 }, /version 1 file have an exact float sum/],
    ];
    for (const [version, stats, reason] of v4) {
      const p = join(dir, `f${n++}.vtx`);
      writeFileSync(p, forge([{ name: 'c', type: TYPE.DOUBLE }], [{ rows: 1, chunks: [{ body: new Bytes().u8(0).u8(0).f64(1).done(), stats }] }], version));
      await refuses(`SELECT count(*) FROM vortex_scan(${sqlString(p)})`, p, reason);
    }
    // The honest version-4 zone is read, and its exact sum pushed.
    const ok = join(dir, `f${n++}.vtx`);
    writeFileSync(ok, forge([{ name: 'c', type: TYPE.DOUBLE }], [{ rows: 1, chunks: [{ body: new Bytes().u8(0).u8(0).f64(1).done(), stats: { rows: 1, min: f(1), max: f(1), exactSum: one1 } }] }], 4));
    expect(await result(`SELECT sum(c), avg(c) FROM vortex_scan(${sqlString(ok)})`)).toEqual([[1, 1]]);
  });

  it('impossible sizes and names', async () => {
    // A zone larger than any writer may write: refused before anything is allocated.
    const big = file([{ name: 'c', type: TYPE.BIGINT }], [{ rows: (1n << 30n) + 1n, chunks: [{ body: new Bytes().u8(0).u8(1).int(7n, 8).done(), stats: { rows: (1n << 30n) + 1n, min: le(7n, 8), max: le(7n, 8), intSum: 7n * ((1n << 30n) + 1n) } }] }]);
    await refuses(scan(big), big, /zone row count is out of range|more rows than a zone can hold/);
    const v = [1n];
    const chunk = () => ({ body: plainFixed(v, 8), stats: intStats(v, 8) });
    const dup = file([{ name: 'Amount', type: TYPE.BIGINT }, { name: 'amount', type: TYPE.BIGINT }], [{ rows: 1, chunks: [chunk(), chunk()] }]);
    await refuses(scan(dup), dup, /duplicate column name "amount"/);
    const badName = file([{ name: Buffer.from([0x63, 0xc3]), type: TYPE.BIGINT }], [{ rows: 1, chunks: [chunk()] }]);
    await refuses(scan(badName), badName, /column name is not valid UTF-8/);
    const badType = file([{ name: 'c', type: 99 }], [{ rows: 1, chunks: [chunk()] }]);
    await refuses(scan(badType), badType, /invalid type/);
    const badDecimal = file([{ name: 'c', type: TYPE.DECIMAL, precision: 39 }], [{ rows: 1, chunks: [chunk()] }]);
    await refuses(scan(badDecimal), badDecimal, /invalid type/);
  });

  it('values decoded a vector at a time as they are emitted: right where honest, an error naming the file where not', async () => {
    // A projected column that no filter reads is left packed and decoded 2,048 rows at a time
    // into DuckDB's vector: a dictionary code out of range then surfaces in a later vector, after
    // rows were already handed on, and must still fail the statement naming the file.
    const rows = 5000; // two whole vectors and a partial one
    const k = Array.from({ length: rows }, (_, i) => BigInt(i));
    const kChunk = { body: plainFixed(k, 8), stats: intStats(k, 8) };
    const entries = [-5n, 1n << 40n, 7n];
    const codes = Array.from({ length: rows }, (_, i) => (i * 7) % 3);
    const values = codes.map((c) => entries[c]);
    const deltas = Array.from({ length: rows }, (_, i) => BigInt((i * 13) % 1000));
    const two = (type: number, width: number, body: Uint8Array, v: bigint[]) =>
      file([{ name: 'k', type: TYPE.BIGINT }, { name: 'c', type }], [{ rows, chunks: [kChunk, { body, stats: intStats(v, width) }] }]);
    const cases: Array<[string, number, number, Uint8Array, bigint[]]> = [
      ['BIGINT dictionary', TYPE.BIGINT, 8, dictFixed(entries, codes, 8), values],
      ['INTEGER frame', TYPE.INTEGER, 4, forFixed(BigInt.asUintN(32, -300n) ^ (1n << 31n), deltas, 10), deltas.map((d) => d - 300n)],
      ['SMALLINT dictionary', TYPE.SMALLINT, 2, dictFixed([3n, -4n, 5n], codes, 2), codes.map((c) => [3n, -4n, 5n][c])],
      ['BIGINT frame', TYPE.BIGINT, 8, forFixed(BigInt.asUintN(64, -(1n << 50n)) ^ (1n << 63n), deltas, 10), deltas.map((d) => d - (1n << 50n))],
    ];
    for (const [what, type, width, body, v] of cases) {
      const p = two(type, width, body, v);
      const got = await result(`SELECT k, c FROM vortex_scan(${sqlString(p)}) ORDER BY k`);
      expect(got.map((r) => BigInt(r[1] as number | bigint)), what).toEqual(v);
      // Under a filter on the other column: only the kept rows, from a later vector too.
      const kept = await result(`SELECT k, c FROM vortex_scan(${sqlString(p)}) WHERE k % 1000 = 999 ORDER BY k`);
      expect(kept.map((r) => BigInt(r[1] as number | bigint)), what).toEqual(v.filter((_, i) => i % 1000 === 999));
    }
    const badCodes = codes.map((c, i) => (i === 4100 ? 3 : c)); // in the third vector
    const bad = two(TYPE.BIGINT, 8, dictFixed(entries, badCodes, 8), values);
    await refuses(scan(bad), bad, /dictionary code out of range/);
    await refuses(`SELECT c FROM vortex_scan(${sqlString(bad)}) WHERE k > 10`, bad, /dictionary code out of range/);
    expect(await result('SELECT 42')).toEqual([[42]]);
  });

  it('odd but valid shapes read correctly: no zones, empty zones, two chunks sharing one segment', async () => {
    const none = file([{ name: 'c', type: TYPE.BIGINT }], []);
    expect(await result(`SELECT count(*), sum(c) FROM vortex_scan(${sqlString(none)})`)).toEqual([[0n, null]]);
    const v = [4n, 6n];
    const empty = file([{ name: 'c', type: TYPE.BIGINT }], [
      { rows: 0, chunks: [{ body: plainFixed([], 8), stats: { rows: 0, intSum: 0n } }] },
      { rows: 2, chunks: [{ body: plainFixed(v, 8), stats: intStats(v, 8) }] },
    ]);
    expect(await result(`SELECT count(*), sum(c) FROM vortex_scan(${sqlString(empty)})`)).toEqual([[2n, 10n]]);
    expect(await result(scan(empty))).toEqual([[4n], [6n]]);
  });

  it('limitation: statistics that are consistent but untrue answer pushed aggregates as they say', async () => {
    // Checksums prove a file is the one written, not that its writer was honest. A forged
    // footer whose statistics agree with each other but not with the data gives the pushed
    // answer the statistics describe; a scan gives the data's (documented in docs/RELIABILITY.md).
    const v = [1n, 2n, 3n];
    const p = one(TYPE.BIGINT, plainFixed(v, 8), { rows: 3, min: le(1n, 8), max: le(3n, 8), intSum: 7n });
    expect(await result(`SELECT sum(c) FROM vortex_scan(${sqlString(p)})`)).toEqual([[7n]]);
    await conn.run('SET vortex_pushdown = false');
    expect(await result(`SELECT sum(c) FROM vortex_scan(${sqlString(p)})`)).toEqual([[6n]]);
    await conn.run('RESET vortex_pushdown');
  });
});
