import fc from 'fast-check';
import type { DuckDBConnection } from '@duckdb/node-api';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, explain, openDb, sqlString, tempDir } from './helpers';
import { pushedAggregates } from '../src/explain';
import { forge, intStats, le, plainFixed, type Stats, TYPE } from './workers/vtx-forge';

// Distinct counts from the file (issue 21): count(DISTINCT k) from the distinct values zones keep
// (and decoded zones where they keep none), approx_count_distinct from per-zone HyperLogLog
// registers of DuckDB's own hash, merged: both equal DuckDB's own answer on the same rows, not
// merely close. Property: over every key type, NULLs, several files, hive partitions, filters and
// GROUP BY, pushed = pushdown off = a DuckDB table, in value and type.

const SEED = Number(process.env.VORTEX_FC_SEED ?? 20261201);
const RUNS = Number(process.env.VORTEX_FC_FILTER_RUNS ?? 15);

/** Key columns: SQL over `h` (a random UBIGINT) and `i` (the row number), and how many values. */
const KEYS: Array<{ name: string; type: string; sql: string }> = [
  { name: 'k_bool', type: 'BOOLEAN', sql: 'h % 2 = 0' },
  { name: 'k_tiny', type: 'TINYINT', sql: '(h % 200)::INTEGER - 100' },
  { name: 'k_int', type: 'INTEGER', sql: '(h % 50)::INTEGER' },
  { name: 'k_big', type: 'BIGINT', sql: '(h % 100000)::BIGINT - 50000' },
  { name: 'k_ubig', type: 'UBIGINT', sql: 'h % 1000' },
  { name: 'k_huge', type: 'HUGEINT', sql: '(h % 30)::HUGEINT * 100000000000000000000' },
  { name: 'k_dec', type: 'DECIMAL(9,2)', sql: '((h % 400)::INTEGER / 4)::DECIMAL(9,2)' },
  { name: 'k_dec38', type: 'DECIMAL(38,3)', sql: '((h % 400)::INTEGER)::DECIMAL(38,3)' },
  { name: 'k_str', type: 'VARCHAR', sql: "'s' || (h % 20)::VARCHAR" },
  { name: 'k_long', type: 'VARCHAR', sql: "repeat('x', 70) || (h % 9)::VARCHAR" },
  { name: 'k_blob', type: 'BLOB', sql: "('b' || (h % 7)::VARCHAR)::BLOB" },
  { name: 'k_date', type: 'DATE', sql: "DATE '2024-01-01' + (i // 500)::INTEGER" },
  { name: 'k_ts', type: 'TIMESTAMP', sql: "TIMESTAMP '2024-01-01' + INTERVAL ((h % 5000)::INTEGER) SECOND" },
  { name: 'k_tstz', type: 'TIMESTAMPTZ', sql: "TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL ((h % 300)::INTEGER) MINUTE" },
  { name: 'k_time', type: 'TIME', sql: "TIME '00:00:00' + INTERVAL ((h % 86400)::INTEGER) SECOND" },
  { name: 'k_uuid', type: 'UUID', sql: "('00000000-0000-0000-0000-' || lpad((h % 40)::VARCHAR, 12, '0'))::UUID" },
  { name: 'k_dbl', type: 'DOUBLE', sql: "CASE h % 9 WHEN 0 THEN 'nan'::DOUBLE WHEN 1 THEN -0.0 WHEN 2 THEN 0.0 ELSE (h % 50)::DOUBLE / 4 END" },
  { name: 'k_iv', type: 'INTERVAL', sql: "INTERVAL ((h % 40)::INTEGER) HOUR" },
];

const dir = tempDir('vtx-distinct-');
let conn: DuckDBConnection;
let run = 0;

beforeAll(async () => {
  ({ conn } = await openDb());
  // The pushed paths themselves are under test: pushed wherever the rules allow, even where the
  // cost model would leave the query to DuckDB (test/cost-model.test.ts tests that decision).
  await conn.run('SET vortex_pushdown_cost_based = false');
});

async function write(seed: number, rows: number, zone: number): Promise<{ table: string; src: string; hive: string }> {
  const n = run++;
  const table = `d${n}`;
  const cols = KEYS.map((k, j) => {
    const h = `hash(i * 1000003 + ${seed + j * 7919})`;
    return `CASE WHEN ${h} % 13 = 0 THEN NULL ELSE (${k.sql.replace(/\bh\b/g, `(${h} // 13)`)})::${k.type} END AS ${k.name}`;
  });
  await conn.run(`CREATE TABLE ${table} AS SELECT i AS id, (i % 4)::BIGINT AS part, (i // 700)::INTEGER AS day, ${cols.join(', ')} FROM range(${rows}) r(i)`);
  const sub = join(dir, `t${n}`);
  mkdirSync(sub, { recursive: true });
  await conn.run(`COPY (SELECT * FROM ${table} ORDER BY id) TO ${sqlString(join(sub, 'all.vtx'))} (FORMAT vortex, ROW_GROUP_SIZE ${zone})`);
  await conn.run(`COPY (SELECT * FROM ${table} ORDER BY id) TO ${sqlString(join(sub, 'hive'))} (FORMAT vortex, PARTITION_BY (part), ROW_GROUP_SIZE ${zone})`);
  return {
    table,
    src: `vortex_scan(${sqlString(join(sub, 'all.vtx'))})`,
    hive: `vortex_scan(${sqlString(join(sub, 'hive', '*', '*.vtx'))}, hive_partitioning := true)`,
  };
}

const WHERE = ['', 'WHERE id % 3 = 0', 'WHERE id >= 500 AND id < 3000', "WHERE part IN (1, 3)"];

describe('distinct counts answered from the file', () => {
  it('count(DISTINCT k) and approx_count_distinct(k) equal DuckDB, pushed and not', async () => {
    let pushedExact = 0;
    let pushedApprox = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1 << 30 }), fc.integer({ min: 1, max: 6000 }), fc.constantFrom(100, 1000, 122880),
        fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom(...WHERE), fc.boolean(), fc.boolean()), { minLength: 4, maxLength: 4 }),
        async (seed, rows, zone, cases) => {
          const { table, src, hive } = await write(seed, rows, zone);
          for (const [key, where, grouped, overHive] of cases) {
            const from = overHive ? hive : src;
            const sql = (f: string) => grouped
              ? `SELECT day, count(DISTINCT ${key.name}), approx_count_distinct(${key.name}), count(*) FROM ${f} ${where} GROUP BY day ORDER BY day`
              : `SELECT count(DISTINCT ${key.name}), approx_count_distinct(${key.name}), count(*) FROM ${f} ${where}`;
            const want = await answerText(conn, sql(table));
            expect(await answerText(conn, sql(from)), sql(from)).toBe(want);
            await conn.run('SET vortex_pushdown = false');
            expect(await answerText(conn, sql(from)), `pushdown off: ${sql(from)}`).toBe(want);
            await conn.run('RESET vortex_pushdown');
            const plan = await explain(conn, sql(from));
            pushedExact += /Pushed Aggregates[\s\S]*count\(DISTINCT/.test(plan) ? 1 : 0;
            pushedApprox += /Pushed Aggregates[\s\S]*approx_count_distinct/.test(plan) ? 1 : 0;
          }
        }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    expect(pushedExact).toBeGreaterThan(RUNS);
    expect(pushedApprox).toBeGreaterThan(RUNS / 2);
  }, 900_000);

  it('are pushed, and shown in EXPLAIN; switches turn them off', async () => {
    const { table, src } = await write(5, 20000, 1000);
    const sql = (f: string) => `SELECT count(DISTINCT k_str), approx_count_distinct(k_big) FROM ${f}`;
    const plan = (await explain(conn, sql(src))).replace(/[\s│]+/g, ' ');
    expect(plan).toMatch(/Pushed Aggregates: count\(DISTINCT k_str\) approx_count_distinct ?\(k_big\)/);
    expect(await answerText(conn, sql(src))).toBe(await answerText(conn, sql(table)));
    for (const [setting, off] of [['vortex_pushdown_distinct', 'count(DISTINCT k_str)'], ['vortex_pushdown_approx_distinct', 'approx_count_distinct(k_big)']]) {
      await conn.run(`SET ${setting} = false`);
      try {
        // The other one is still pushed (the list pushed in part); this one is DuckDB's, and EXPLAIN says why.
        const p = await explain(conn, sql(src));
        expect(pushedAggregates(p).map((a) => a.replace(/ /g, ''))).not.toContain(off);
        expect(p.replace(/[\s│]+/g, '')).toContain(`${setting}isfalse`); // DuckDB wraps mid-word
        expect(await answerText(conn, sql(src))).toBe(await answerText(conn, sql(table)));
      } finally {
        await conn.run(`RESET ${setting}`);
      }
    }
  });
});

describe('sketches of time zone types', () => {
  // A column's sketches are used only where the running DuckDB hashes its type as the writer's
  // did, checked with a fingerprint of the hashes of a few literals cast to the type. The session's
  // casts to TIMESTAMPTZ and TIMETZ read those literals in its TimeZone, so a file written in one
  // zone lost its sketches (and distinct counts) in another; the fingerprint now reads them as UTC.
  const ZONES = ['UTC', 'Asia/Kolkata', 'America/New_York', 'Pacific/Chatham'];
  const fingerprintOf = (path: string) => {
    const b = readFileSync(path);
    return b.readBigUInt64LE(b.length - 12 - 8); // a one-column file's, at the end of its footer
  };

  it('are the same written in any zone, and answer approx_count_distinct read in any zone', async () => {
    await conn.run(`CREATE TABLE tz_rows AS SELECT TIMESTAMPTZ '2024-03-30 20:00:00+00' + INTERVAL ((i * 7919) % 5000) MINUTE AS ts,
      (TIME '00:00:00' + INTERVAL ((i * 104729) % 86400) SECOND)::TIMETZ AS tt FROM range(20000) r(i)`);
    const prints: Record<string, Set<bigint>> = { ts: new Set(), tt: new Set() };
    const files: string[] = [];
    for (const zone of ZONES) {
      await conn.run(`SET TimeZone = '${zone}'`);
      for (const col of ['ts', 'tt']) {
        const path = join(dir, `tz-${col}-${zone.replace('/', '-')}.vtx`);
        await conn.run(`COPY (SELECT ${col} FROM tz_rows) TO ${sqlString(path)} (FORMAT vortex, ROW_GROUP_SIZE 3000)`);
        prints[col].add(fingerprintOf(path));
        files.push(path);
      }
    }
    expect(prints.ts.size).toBe(1);
    expect(prints.tt.size).toBe(1);
    expect([...prints.ts][0]).not.toBe(0n);
    for (const zone of ZONES) {
      await conn.run(`SET TimeZone = '${zone}'`);
      for (const path of files) {
        const col = path.includes('tz-ts-') ? 'ts' : 'tt';
        const sql = (f: string) => `SELECT approx_count_distinct(${col}) FROM ${f}`;
        expect(await explain(conn, sql(sqlString(path))), `${path} read in ${zone}`).toContain('Pushed Aggregates');
        expect(await answerText(conn, sql(sqlString(path)))).toBe(await answerText(conn, sql('tz_rows')));
      }
    }
    await conn.run('RESET TimeZone');
  });
});

describe('distinct values of zones that start with NULL', () => {
  // The writer takes a zone's distinct values (and its strings' min and max) from what it encodes,
  // where NULL rows before the first value stand in as '': that '' must count only where a row
  // holds it.
  it('count(DISTINCT s), min(s) and max(s) per zone equal DuckDB, with and without \'\' among the values', async () => {
    const table = 'lead_null';
    await conn.run(`CREATE TABLE ${table} AS SELECT i, CASE WHEN i % 100 < 3 THEN NULL WHEN i % 200 < 100 THEN 'a' || (i % 3)::VARCHAR
      WHEN i % 2 = 0 THEN '' ELSE 'b' END AS s, CASE WHEN i % 100 < 3 THEN NULL ELSE (i % 5)::BIGINT * 1000 END AS k FROM range(2000) r(i)`);
    const file = join(dir, 'lead-null.vtx');
    await conn.run(`COPY (SELECT * FROM ${table} ORDER BY i) TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 100)`);
    for (const col of ['s', 'k']) {
      const sql = (f: string) => `SELECT i // 100 AS z, count(DISTINCT ${col}), min(${col}), max(${col}) FROM ${f} GROUP BY z ORDER BY z`;
      expect(await explain(conn, sql(sqlString(file)))).toContain('Pushed Aggregates');
      expect(await answerText(conn, sql(sqlString(file)))).toBe(await answerText(conn, sql(table)));
      const whole = (f: string) => `SELECT count(DISTINCT ${col}), min(${col}), max(${col}) FROM ${f}`;
      expect(await answerText(conn, whole(sqlString(file)))).toBe(await answerText(conn, whole(table)));
    }
  });
});

describe('the memory budget of count(DISTINCT)', () => {
  it('holds decoded distinct values up to a quarter of memory_limit; beyond, DuckDB counts and EXPLAIN says why', async () => {
    // A database of its own: DuckDB may spill under the small limit, into the test's directory.
    const { instance, conn: db } = await openDb();
    try {
      await db.run(`SET temp_directory = ${sqlString(join(dir, 'spill'))}`);
      const file = join(dir, 'many.vtx');
      await db.run(`COPY (SELECT 'user ' || (hash(i) % 300000)::VARCHAR AS u FROM range(300000) r(i)) TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 50000)`);
      const sql = `SELECT count(DISTINCT u) FROM ${sqlString(file)}`;
      const want = await answerText(db, `SELECT count(DISTINCT 'user ' || (hash(i) % 300000)::VARCHAR) FROM range(300000) r(i)`);
      // No zone keeps a list of its values: every row would be hashed, which DuckDB does as fast.
      const declined = (await explain(db, sql)).replace(/[\s│]+/g, ' ');
      expect(declined).not.toContain('Pushed Aggregates');
      expect(declined).toMatch(/count\(DISTINCT u\): cost: 300000 of its 300000 values are in zones that keep no list/);
      expect(await answerText(db, sql)).toBe(want);
      await db.run('SET vortex_pushdown_cost_based = false');
      expect(await explain(db, sql)).toContain('Pushed Aggregates');
      expect(await answerText(db, sql)).toBe(want);
      await db.run("SET memory_limit = '64MB'"); // a budget of 16MB: about 170,000 strings
      const plan = (await explain(db, sql)).replace(/[\s│]+/g, ' ');
      expect(plan).not.toContain('Pushed Aggregates');
      expect(plan).toMatch(/distinct values in zones that keep no list of them/);
      expect(await answerText(db, sql)).toBe(want);
    } finally {
      db.closeSync();
      instance.closeSync();
    }
  });
});

describe('files without sketches', () => {
  it('COPY (SKETCHES false) writes none: approx_count_distinct is counted by DuckDB and EXPLAIN says why', async () => {
    const { table } = await write(11, 5000, 1000);
    const file = join(dir, 'nosketch.vtx');
    const sized = join(dir, 'sketch.vtx');
    await conn.run(`COPY (SELECT * FROM ${table} ORDER BY id) TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 1000, SKETCHES false)`);
    await conn.run(`COPY (SELECT * FROM ${table} ORDER BY id) TO ${sqlString(sized)} (FORMAT vortex, ROW_GROUP_SIZE 1000, SKETCHES)`);
    const sql = (f: string) => `SELECT approx_count_distinct(k_big), count(DISTINCT k_str) FROM ${f}`;
    const want = await answerText(conn, sql(table));
    expect(await answerText(conn, sql(sqlString(file)))).toBe(want);
    expect(await answerText(conn, sql(sqlString(sized)))).toBe(want);
    const plan = (await explain(conn, sql(sqlString(file)))).replace(/[\s│]+/g, ' ');
    expect(plan).not.toContain('Pushed Aggregates');
    expect(plan).toMatch(/keeps no sketches/);
    expect(await explain(conn, sql(sqlString(sized)))).toContain('Pushed Aggregates');
    // 64 bytes per zone and column: the sketches cost little.
    const size = (f: string) => readFileSync(f).length;
    expect(size(sized)).toBeGreaterThan(size(file));
    await expect(conn.run(`COPY ${table} TO ${sqlString(join(dir, 'bad.vtx'))} (FORMAT vortex, SKETCHES 'maybe')`))
      .rejects.toThrow(/sketches must be true or false, got maybe|convert string 'maybe' to BOOL/);
  });
});

describe('files whose sketches or distinct values disagree with their rows', () => {
  // Forged version-4 files (test/workers/vtx-forge.ts) of one BIGINT column holding 1, 2, 3, with
  // the hash fingerprint of a genuine BIGINT file (the last 8 bytes of its footer) so that its
  // sketch would be used.
  let fingerprint: bigint;
  const forgedFile = (name: string, stats: Partial<Stats>) => {
    const v = [1n, 2n, 3n];
    const path = join(dir, name);
    writeFileSync(path, forge([{ name: 'k', type: TYPE.BIGINT }], [{ rows: 3, chunks: [{ body: plainFixed(v, 8), stats: { ...intStats(v, 8), ...stats } }] }], 4, [fingerprint]));
    return path;
  };
  const refuses = async (sql: string, path: string, reason: RegExp) => {
    const text = await answerText(conn, sql);
    expect(text).toContain(`vortex: file "${path}" is not a valid .vtx file`);
    expect(text).toMatch(reason);
  };

  beforeAll(async () => {
    const genuine = join(dir, 'genuine.vtx');
    await conn.run(`COPY (SELECT range::BIGINT AS k FROM range(3)) TO ${sqlString(genuine)} (FORMAT vortex)`);
    const b = readFileSync(genuine);
    const footerEnd = b.length - 12;
    fingerprint = b.readBigUInt64LE(footerEnd - 8);
  });

  it('the honest forged file is answered (its distinct values are checked against its rows)', async () => {
    const path = forgedFile('honest.vtx', { distinct: [le(1n, 8), le(2n, 8), le(3n, 8)].sort(Buffer.compare) });
    const sql = `SELECT count(DISTINCT k) FROM ${sqlString(path)}`;
    expect(await explain(conn, sql)).toContain('Pushed Aggregates');
    expect(await answerText(conn, sql)).toBe(JSON.stringify({ types: ['BIGINT'], rows: [['3n']] }));
  });

  it('distinct values that miss a value of the rows are refused, naming the file', async () => {
    const path = forgedFile('missing.vtx', { distinct: [le(1n, 8), le(3n, 8)].sort(Buffer.compare) });
    await refuses(`SELECT count(DISTINCT k) FROM ${sqlString(path)}`, path, /distinct values of zone 0 of column "k" disagrees with its rows/);
  });

  it('a sketch that is not the rows\' is refused, naming the file', async () => {
    const sketch = Array(64).fill(0);
    sketch[5] = 3;
    const path = forgedFile('sketch.vtx', { sketch });
    await refuses(`SELECT approx_count_distinct(k) FROM ${sqlString(path)}`, path, /sketch of zone 0 of column "k" disagrees with its rows/);
  });

  it('statistics that contradict themselves are refused when the footer is read', async () => {
    const path = forgedFile('order.vtx', { distinct: [le(3n, 8), le(1n, 8), le(2n, 8)] });
    await refuses(`SELECT count(*) FROM ${sqlString(path)}`, path, /distinct values out of order/);
    const high = Array(64).fill(0);
    high[0] = 60;
    const reg = forgedFile('register.vtx', { sketch: high });
    await refuses(`SELECT count(*) FROM ${sqlString(reg)}`, reg, /sketch register out of range/);
  });
});
