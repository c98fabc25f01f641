// Nested and ENUM columns (format version 3): every such column of DuckDB's test_all_types(),
// and seeded random nested types, round-trip with identical rows, order and types; projections
// of fields and elements answer as over a DuckDB table.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { answerText, openDb, referenceText, rows, scalar, sqlString, tempDir, VERIFY } from './helpers';
import { pushedAggregates } from '../src/explain';

const dir = tempDir('vtx-nested-');

async function sameAnswer(conn: DuckDBConnection, a: string, b: string): Promise<void> {
  expect(await answerText(conn, b)).toBe(await answerText(conn, a));
}

async function roundTrip(conn: DuckDBConnection, table: string, file: string, options = ''): Promise<string> {
  const path = `${dir}/${file}`;
  await conn.run(`COPY (SELECT * FROM ${table}) TO ${sqlString(path)} (FORMAT vortex${options})`);
  const scan = `vortex_scan(${sqlString(path)})`;
  const types = async (from: string) => (await rows(conn, `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${from})`)).map(String);
  expect(await types(scan)).toEqual(await types(table));
  await sameAnswer(conn, `SELECT * FROM ${table}`, `SELECT * FROM ${scan}`);
  expect(await scalar(conn, `SELECT count(*) FROM (SELECT * FROM ${table} EXCEPT ALL SELECT * FROM ${scan})`)).toBe(0n);
  expect(await scalar(conn, `SELECT count(*) FROM (SELECT * FROM ${scan} EXCEPT ALL SELECT * FROM ${table})`)).toBe(0n);
  return scan;
}

describe('test_all_types() nested and ENUM columns', () => {
  it('round-trip one at a time and all together, with identical rows, order and types', async () => {
    const { conn } = await openDb();
    const columns = (await rows(conn, 'SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM test_all_types())'))
      .filter(([, type]) => /STRUCT|\[|MAP\(|ENUM\(|UNION\(/.test(String(type)))
      .map(([name]) => String(name));
    expect(columns.length).toBeGreaterThanOrEqual(20);
    await conn.run('CREATE TABLE all_types AS SELECT * FROM test_all_types()');
    for (const [k, name] of columns.entries()) {
      await conn.run(`CREATE OR REPLACE TABLE one AS SELECT "${name}" FROM all_types`);
      await roundTrip(conn, 'one', `one-${k}.vtx`);
    }
    const list = columns.map((c) => `"${c}"`).join(', ');
    await conn.run(`CREATE TABLE together AS SELECT ${list} FROM all_types, range(300) r(i) ORDER BY i`);
    await roundTrip(conn, 'together', 'together.vtx', ', ROW_GROUP_SIZE 128');
  });

  it('marks files with nested columns as format version 3, and keeps older versions for the rest', async () => {
    const { conn } = await openDb();
    await conn.run(`COPY (SELECT 1 AS x) TO ${sqlString(`${dir}/flat.vtx`)} (FORMAT vortex, SKETCHES false)`);
    await conn.run(`COPY (SELECT [1] AS x) TO ${sqlString(`${dir}/list.vtx`)} (FORMAT vortex, SKETCHES false)`);
    const version = async (f: string) => scalar(conn, `SELECT DISTINCT format_version FROM vortex_metadata(${sqlString(`${dir}/${f}`)})`);
    expect(await version('flat.vtx')).toBe(1);
    expect(await version('list.vtx')).toBe(3);
  });

  it('keeps an ENUM type\'s name and values', async () => {
    const { conn } = await openDb();
    await conn.run("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
    await conn.run("CREATE TABLE moods AS SELECT (['sad', 'ok', 'happy', NULL])[1 + i % 4]::mood AS m FROM range(1000) r(i)");
    const scan = await roundTrip(conn, 'moods', 'moods.vtx', ', ROW_GROUP_SIZE 100');
    expect(await scalar(conn, `SELECT typeof(m) FROM ${scan} LIMIT 1`)).toBe(await scalar(conn, 'SELECT typeof(m) FROM moods LIMIT 1'));
    await sameAnswer(conn, "SELECT m, count(*) FROM moods WHERE m > 'sad' GROUP BY m ORDER BY m",
      `SELECT m, count(*) FROM ${scan} WHERE m > 'sad' GROUP BY m ORDER BY m`);
  });
});

// A seeded generator of nested types and of SQL that fills them from a row number `i`, with
// NULLs at every level, empty lists and repeated values.
class Random {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
}

interface Gen { type: string; expr: (seed: string) => string; paths: Array<(col: string) => string> }

let lambdaVar = 0;
function genType(r: Random, depth: number): Gen {
  // A choice by list index rather than CASE, which DuckDB does not implement for ARRAY values.
  const nullable = (seed: string, e: string) => `[NULL, ${e}][1 + (hash(${seed}, 7) % 5 <> 0)::INTEGER]`;
  const leaves: Gen[] = [
    { type: 'INTEGER', expr: (s) => nullable(s, `(hash(${s}, 1) % 1000)::INTEGER - 500`), paths: [] },
    { type: 'BIGINT', expr: (s) => nullable(s, `(hash(${s}, 2) % 100000)::BIGINT`), paths: [] },
    { type: 'VARCHAR', expr: (s) => nullable(s, `'v' || (hash(${s}, 3) % 40)::VARCHAR || repeat('x', (hash(${s}, 4) % 20)::INTEGER)`), paths: [] },
    { type: 'DOUBLE', expr: (s) => nullable(s, `(hash(${s}, 5) % 10000)::DOUBLE / 8`), paths: [] },
    { type: 'BOOLEAN', expr: (s) => nullable(s, `hash(${s}, 6) % 2 = 0`), paths: [] },
    { type: 'DATE', expr: (s) => nullable(s, `DATE '2020-01-01' + (hash(${s}, 8) % 900)::INTEGER`), paths: [] },
    { type: 'DECIMAL(12,3)', expr: (s) => nullable(s, `((hash(${s}, 9) % 1000000)::BIGINT / 1000)::DECIMAL(12,3)`), paths: [] },
  ];
  const kind = depth >= 4 ? 'leaf' : r.pick(['leaf', 'struct', 'list', 'array', 'map', 'union', 'struct', 'list'] as const);
  if (kind === 'leaf') return r.pick(leaves);
  const v = `j${lambdaVar++}`;
  const sub = (s: string, k: string | number) => `${s} * 31 + ${k}`;
  switch (kind) {
    case 'struct': {
      const n = 1 + r.int(3);
      const fields = Array.from({ length: n }, () => genType(r, depth + 1));
      return {
        type: `STRUCT(${fields.map((f, k) => `f${k} ${f.type}`).join(', ')})`,
        expr: (s) => nullable(s, `{${fields.map((f, k) => `'f${k}': ${f.expr(sub(s, k))}`).join(', ')}}::STRUCT(${fields.map((f, k) => `f${k} ${f.type}`).join(', ')})`),
        paths: fields.flatMap((f, k) => [(c: string) => `(${c}).f${k}`, ...f.paths.map((p) => (c: string) => p(`(${c}).f${k}`))]),
      };
    }
    case 'list': {
      const el = genType(r, depth + 1);
      return {
        type: `${el.type}[]`,
        expr: (s) => nullable(s, `list_transform(range((hash(${s}, 11) % 4)::BIGINT), ${v} -> ${el.expr(sub(`(${s})`, v))})::${el.type}[]`),
        paths: [(c) => `len(${c})`, (c) => `(${c})[1]`, ...el.paths.map((p) => (c: string) => p(`(${c})[2]`))],
      };
    }
    case 'array': {
      const el = genType(r, depth + 1);
      const size = 1 + r.int(3);
      return {
        type: `${el.type}[${size}]`,
        expr: (s) => nullable(s, `list_transform(range(${size}), ${v} -> ${el.expr(sub(`(${s})`, v))})::${el.type}[${size}]`),
        paths: [(c) => `(${c})[${size}]`, ...el.paths.map((p) => (c: string) => p(`(${c})[1]`))],
      };
    }
    case 'map': {
      const value = genType(r, depth + 1);
      return {
        type: `MAP(INTEGER, ${value.type})`,
        expr: (s) => nullable(s, `map_from_entries(list_transform(range((hash(${s}, 12) % 3)::BIGINT), ${v} -> {'key': ${v}::INTEGER, 'value': ${value.expr(sub(`(${s})`, v))}}))::MAP(INTEGER, ${value.type})`),
        paths: [(c) => `cardinality(${c})`, (c) => `(${c})[1]`, (c) => `map_keys(${c})`],
      };
    }
    default: {
      const a = genType(r, depth + 1);
      return {
        type: `UNION(a INTEGER, b ${a.type})`,
        expr: (s) => `[NULL, union_value(a := (hash(${s}, 14) % 100)::INTEGER)::UNION(a INTEGER, b ${a.type}), union_value(b := ${a.expr(sub(`(${s})`, 1))})::UNION(a INTEGER, b ${a.type})][1 + (hash(${s}, 13) % 3)::INTEGER]`,
        paths: [(c) => `union_tag(${c})`, (c) => `(${c}).a`, (c) => `(${c}).b`],
      };
    }
  }
}

describe('random nested types', () => {
  it('round-trip over many zones, and projections of random fields equal a DuckDB table\'s', async () => {
    const { conn } = await openDb();
    let compared = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const r = new Random(seed);
      const columns = Array.from({ length: 1 + r.int(3) }, () => genType(r, 0));
      const n = 500 + r.int(3000);
      const select = columns.map((c, k) => `${c.expr(`i * 7 + ${k}`)} AS c${k}`).join(', ');
      await conn.run(`CREATE OR REPLACE TABLE src AS SELECT i AS id, ${select} FROM range(${n}) r(i)`);
      const scan = await roundTrip(conn, 'src', `random-${seed}.vtx`, `, ROW_GROUP_SIZE ${1 + r.int(700)}`);
      for (const [k, c] of columns.entries()) {
        for (const path of c.paths.slice(0, 6)) {
          const expr = path(`c${k}`);
          await sameAnswer(conn, `SELECT id, ${expr} FROM src ORDER BY id`, `SELECT id, ${expr} FROM ${scan} ORDER BY id`);
          compared++;
        }
        await sameAnswer(conn, `SELECT count(c${k}), count(*) FROM src`, `SELECT count(c${k}), count(*) FROM ${scan}`);
      }
    }
    expect(compared).toBeGreaterThan(40);
  });
});

describe('aggregates over nested columns and struct fields', () => {
  it('are pushed and equal a DuckDB table\'s, with NULL structs, NULL fields and nested structs', async () => {
    const { conn } = await openDb();
    await conn.run(`CREATE TABLE src AS SELECT i,
      CASE WHEN hash(i, 1) % 5 = 0 THEN NULL ELSE {'a': CASE WHEN hash(i, 2) % 4 = 0 THEN NULL ELSE (hash(i, 3) % 1000)::INTEGER - 500 END,
        'b': CASE WHEN i % 9 = 0 THEN NULL ELSE 'k' || (i % 37)::VARCHAR END,
        'c': CASE WHEN hash(i, 4) % 6 = 0 THEN NULL ELSE {'d': (i % 1000)::BIGINT * 1000003, 'e': (i % 7)::DECIMAL(9,2) / 4} END,
        'f': i::DOUBLE / 3} END AS s,
      CASE WHEN i % 4 = 0 THEN NULL ELSE range(i % 3) END AS l, map([i % 3], [i]) AS m,
      [NULL, [i, i]::BIGINT[2]][1 + (i % 6 <> 0)::INTEGER] AS arr FROM range(20000) r(i)`);
    // Every zone all-NULL for s.a in one file, so that empty groups of values are covered too.
    await conn.run(`COPY (SELECT * FROM src WHERE i < 12000) TO ${sqlString(`${dir}/agg-1.vtx`)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
    await conn.run(`COPY (SELECT i, {'a': NULL::INTEGER, 'b': s.b, 'c': s.c, 'f': s.f} AS s, l, m, arr FROM src WHERE i >= 12000) TO ${sqlString(`${dir}/agg-2.vtx`)} (FORMAT vortex, ROW_GROUP_SIZE 700)`);
    await conn.run(`CREATE TABLE native AS SELECT * FROM vortex_scan(${sqlString(`${dir}/agg-*.vtx`)})`);
    const scan = `vortex_scan(${sqlString(`${dir}/agg-*.vtx`)})`;
    const queries = [
      'SELECT count(s), count(l), count(m), count(arr), count(*) FROM T',
      'SELECT count(s.a), sum(s.a), min(s.a), max(s.a), avg(s.a) FROM T',
      'SELECT min(s.b), max(s.b), count(s.b) FROM T',
      'SELECT sum(s.c.d), min(s.c.d), max(s.c.d), count(s.c), sum(s.c.e), avg(s.c.e) FROM T',
      // Finite float sums depend on the order of addition (DuckDB's own vary with its threads).
      'SELECT round(sum(s.f), 2), count(s.f), round(avg(s.f), 4) FROM T',
      'SELECT count(s.a), sum(s.a), max(s.b), sum(s.c.d) FROM T WHERE i >= 5000 AND i < 16321',
      "SELECT sum(s['a']), sum(struct_extract(s, 'c').d) FROM T",
    ];
    for (const q of queries) {
      const pushedSql = q.replace('FROM T', `FROM ${scan}`);
      await conn.run('SET vortex_pushdown = true');
      const pushed = await answerText(conn, pushedSql);
      expect(await explainText(conn, pushedSql), q).toMatch(/Pushed Aggregates/);
      await conn.run('SET vortex_pushdown = false');
      expect(await answerText(conn, pushedSql), q).toBe(pushed);
      await conn.run('SET vortex_pushdown = true');
      expect(await referenceText(conn, q.replace('FROM T', 'FROM native')), q).toBe(pushed);
    }
    expect(await explainText(conn, `SELECT sum(s.a), count(s.c) FROM ${scan}`)).toMatch(/sum\(s\.a\)[\s\S]*count\(s\.c\)/);
    // Float min/max of a field is never pushed: DuckDB computes it, beside the pushed count.
    const mixed = await explainText(conn, `SELECT min(s.f), count(s) FROM ${scan}`);
    expect(pushedAggregates(mixed)).toEqual(['count(s)']);
    expect(mixed.replace(/[\s│]+/g, '')).toContain('min(s.f):floatmin/maxisneverpushed');
  });
});

describe('projection of struct fields', () => {
  // Not under DuckDB's verification: its unoptimized run has no projection pushdown and reads every field.
  it.skipIf(VERIFY)('reads only the fields a query uses: a corrupt field does not disturb queries of the others', async () => {
    const { conn } = await openDb();
    const file = `${dir}/projection.vtx`;
    await conn.run(`COPY (SELECT i AS id, CASE WHEN i % 10 = 0 THEN NULL ELSE {'a': i, 'b': md5(i::VARCHAR), 'c': {'x': i % 7, 'y': [i]}} END AS s
      FROM range(5000) r(i)) TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 1000, COMPRESSION none)`);
    await conn.run(`CREATE TABLE expected AS SELECT * FROM vortex_scan(${sqlString(file)})`);
    // Damage every segment of s.b and of s.c.y.element.
    const bytes = readFileSync(file);
    const damaged = await rows(conn, `SELECT "offset", stored_bytes FROM vortex_metadata(${sqlString(file)}) WHERE stream IN ('s.b', 's.c.y.element')`);
    expect(damaged.length).toBe(10);
    for (const [offset, size] of damaged) bytes[Number(offset) + Math.floor(Number(size) / 2)] ^= 0xff;
    writeFileSync(file, bytes);
    const scan = `vortex_scan(${sqlString(file)})`;
    for (const expr of ['s.a', 's.c.x', '(s).c.x + s.a']) {
      await sameAnswer(conn, `SELECT id, ${expr} FROM expected ORDER BY id`, `SELECT id, ${expr} FROM ${scan} ORDER BY id`);
    }
    await sameAnswer(conn, 'SELECT sum(s.a), count(s.c.x) FROM expected', `SELECT sum(s.a), count(s.c.x) FROM ${scan}`);
    for (const expr of ['s.b', 's.c.y', 's', 's.c']) {
      await expect(conn.run(`SELECT ${expr} FROM ${scan}`), expr).rejects.toThrow(/checksum mismatch/);
    }
  });
});

describe('filters on struct fields', () => {
  it('skip zones by the field\'s statistics and answer as over a DuckDB table', async () => {
    const { conn } = await openDb();
    const file = `${dir}/struct-filters.vtx`;
    await conn.run(`CREATE TABLE src AS SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE {'a': CASE WHEN i % 7 = 0 THEN NULL ELSE i END,
      'b': {'c': (i // 1000)::INTEGER, 'd': 'k' || (i // 5000)::VARCHAR}} END AS s FROM range(60000) r(i)`);
    await conn.run(`COPY src TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
    const scan = `vortex_scan(${sqlString(file)})`;
    const filters = ['s.a BETWEEN 5000 AND 7000', 's.a > 59990', 's.a IS NULL', 's.a = 70', 's.b.c = 17', 's.b.c IN (3, 40)',
      "s.b.d = 'k3'", "s.b.d > 'k9'", 's.b.c >= 30 AND s.a < 31500', 's.a < 0', 's IS NULL OR s.a = 12345', 's.b.c <> 5'];
    let pushed = 0;
    for (const w of filters) {
      const aggregates = (from: string) => `SELECT count(*), sum(i), count(s), sum(s.a), min(s.b.c), max(s.b.d) FROM ${from} WHERE ${w}`;
      await sameAnswer(conn, aggregates('src'), aggregates(scan));
      if ((await explainText(conn, aggregates(scan))).includes('Pushed Aggregates')) pushed++;
      await conn.run('SET vortex_pushdown = false');
      await sameAnswer(conn, aggregates('src'), aggregates(scan));
      await conn.run('SET vortex_pushdown = true');
      await sameAnswer(conn, `SELECT i, s FROM src WHERE ${w} ORDER BY i LIMIT 20`, `SELECT i, s FROM ${scan} WHERE ${w} ORDER BY i LIMIT 20`);
    }
    // Aggregates under filters on struct fields are answered from zones (DuckDB keeps IN lists
    // and ORs above the scan: those stay DuckDB's).
    expect(pushed).toBeGreaterThanOrEqual(8);
    expect(await explainText(conn, `SELECT sum(s.a) FROM ${scan} WHERE s.b.c = 17`)).toMatch(/s\.b\.c=17/);
    const analyzed = (await rows(conn, `EXPLAIN ANALYZE SELECT count(*) FROM ${scan} WHERE s.a BETWEEN 5000 AND 7000`))
      .map((r) => String(r[1])).join('\n').replace(/[│\s]+/g, ' ');
    // About 60 zones of about 1,000 rows (exactly 1,000 where one thread feeds the COPY; DuckDB's
    // batch copy evens out its batches instead); the field's values 5000..7000 lie in 2 to 4 of them.
    const skipped = Number(/Zones Skipped: (\d+)/.exec(analyzed)?.[1]);
    expect(skipped).toBeGreaterThanOrEqual(54);
    expect(skipped).toBeLessThanOrEqual(58);
  });

  it('written as subscripts (s[\'a\'], r[1]), plan as the field access: zones skipped, aggregates pushed', async () => {
    // DuckDB binds a subscript of a struct to array_extract and leaves it in a FILTER above the
    // scan; the scan hands it back as struct_extract(_at), which DuckDB makes a table filter of.
    const { conn } = await openDb();
    const file = `${dir}/struct-subscripts.vtx`;
    // A table cannot hold an unnamed struct: r is made in a subquery over it.
    await conn.run(`CREATE TABLE subs_t AS SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE {'a': CASE WHEN i % 7 = 0 THEN NULL ELSE i END,
      'b': {'c': (i // 1000)::INTEGER}} END AS s FROM range(30000) t(i)`);
    const subs = `(SELECT i, s, CASE WHEN i % 9 = 0 THEN NULL ELSE (i // 100, 'v' || (i % 3)::VARCHAR) END AS r FROM subs_t)`;
    await conn.run(`COPY ${subs} TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
    const scan = `vortex_scan(${sqlString(file)})`;
    for (const w of ["s['a'] BETWEEN 5000 AND 7000", "s['b']['c'] = 17", "s['b'].c IN (3, 20)", 'r[1] > 250', "r[2] = 'v1' AND r[1] < 30",
      "r[1] = 5 OR s['a'] = 12345", "s['a'] IS NULL", "coalesce(r[1], -1) < 0"]) {
      const q = (from: string) => `SELECT count(*), sum(i), count(s), sum(s.a), max(r[2]), min(r[1]) FROM ${from} WHERE ${w}`;
      for (const expressions of [true, false]) {
        await conn.run(`SET vortex_pushdown_expressions = ${expressions}`);
        await sameAnswer(conn, q(subs), q(scan));
        await sameAnswer(conn, `SELECT i, s, r FROM ${subs} WHERE ${w} ORDER BY i LIMIT 30`, `SELECT i, s, r FROM ${scan} WHERE ${w} ORDER BY i LIMIT 30`);
      }
    }
    await conn.run('SET vortex_pushdown_expressions = true');
    for (const [w, zones] of [["s['a'] BETWEEN 5000 AND 7000", 3], ['r[1] > 250', 6]] as const) {
      const sql = `SELECT count(*), sum(i) FROM ${scan} WHERE ${w}`;
      expect(await explainText(conn, sql), w).toContain('Pushed Aggregates');
      const analyzed = (await rows(conn, `EXPLAIN ANALYZE SELECT i FROM ${scan} WHERE ${w}`)).map((r) => String(r[1])).join('\n').replace(/[│\s]+/g, ' ');
      expect(Number(/Zones Scanned: (\d+)/.exec(analyzed)?.[1]), `${w}: ${analyzed}`).toBeLessThanOrEqual(zones);
    }
    // With expression pushdown off, the subscript stays DuckDB's FILTER, as before.
    await conn.run('SET vortex_pushdown_expressions = false');
    expect(await explainText(conn, `SELECT count(*) FROM ${scan} WHERE s['a'] > 5`)).not.toContain('Pushed Aggregates');
    await conn.run('SET vortex_pushdown_expressions = true');
  });
});

async function explainText(conn: DuckDBConnection, sql: string): Promise<string> {
  return (await rows(conn, `EXPLAIN ${sql}`)).map((r) => String(r[1])).join('\n');
}
