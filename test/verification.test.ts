import type { DuckDBConnection } from '@duckdb/node-api';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, explain, openDb, sqlString, tempDir } from './helpers';

// Pushed plans survive DuckDB's own verification (issue 25): under PRAGMA verify_serializer the
// optimized plan is serialized and deserialized (so the scans the optimizer plants must be found
// in the catalog and rebuild their bind data), and under PRAGMA enable_verification DuckDB also
// runs every query unoptimized, copied, deserialized and prepared, and compares the results.
// The differential suites themselves run under enable_verification through
// scripts/test-verification.mjs.

const dir = tempDir('vtx-verify-');
let conn: DuckDBConnection;
const file = join(dir, 'a.vtx');
const hive = join(dir, 'hive');

beforeAll(async () => {
  ({ conn } = await openDb());
  // Pushed plans are what is verified here: pushed wherever the rules allow.
  await conn.run('SET vortex_pushdown_cost_based = false');
  await conn.run(`COPY (SELECT range::INTEGER AS i, (range % 3)::INTEGER AS g, 'k' || (range % 4) AS s,
      {'a': range, 'b': 'x' || range} AS st, range / 4 AS d,
      TIMESTAMP '2024-01-01' + INTERVAL (range) MINUTE AS ts FROM range(10000)) TO ${sqlString(file)} (FORMAT vortex)`);
  mkdirSync(hive, { recursive: true });
  await conn.run(`COPY (SELECT range AS x, range % 2 AS part FROM range(100)) TO ${sqlString(hive)}
      (FORMAT vortex, PARTITION_BY (part))`);
});

const src = () => sqlString(file);
const hiveSrc = () => `vortex_scan(${sqlString(join(hive, '**', '*.vtx'))}, hive_partitioning := true)`;

const QUERIES: Array<[string, () => string, RegExp?]> = [
  ['the reproduction', () => `SELECT sum(i) FROM ${src()}`],
  ['under WHERE', () => `SELECT sum(i), min(i), max(i), count(*) FROM ${src()} WHERE i > 3`],
  ['min/max of strings', () => `SELECT min(s), max(s), count(s) FROM ${src()}`],
  ['GROUP BY ALL', () => `SELECT g, sum(i), count(*) FROM ${src()} GROUP BY ALL`],
  ['GROUP BY with ORDER BY on the keys', () => `SELECT g, s, sum(i) FROM ${src()} GROUP BY g, s ORDER BY g DESC, s`],
  ['GROUP BY under WHERE', () => `SELECT s, max(i) FROM ${src()} WHERE g <> 1 GROUP BY s ORDER BY s`],
  ['struct fields', () => `SELECT sum(st.a), min(st.b), count(st) FROM ${src()}`],
  ['hive partitions', () => `SELECT part, sum(x), count(*) FROM ${hiveSrc()} GROUP BY part ORDER BY part`],
  ['a partition filter', () => `SELECT sum(x) FROM ${hiveSrc()} WHERE part = 1`],
  ['float sums', () => `SELECT sum(d), avg(d) FROM ${src()}`],
  ['a filter the scan takes, in a plain scan', () => `SELECT i, s FROM ${src()} WHERE s LIKE '%1' OR g = 2 ORDER BY i`, /Expression Filters/],
  ['a filter the scan takes, under a pushed aggregate', () => `SELECT count(*), sum(i) FROM ${src()} WHERE s IN ('k1', 'k3', 'k1')`],
  ['a time bucket as the key', () => `SELECT time_bucket(INTERVAL '1 day', ts) AS h, count(*), sum(i) FROM ${src()} WHERE s <> 'k2' GROUP BY h ORDER BY h`],
  ['integer buckets as the key', () => `SELECT i // 1000 AS b, count(*), sum(g) FROM ${src()} GROUP BY b ORDER BY b`],
];

describe.each(['verify_serializer', 'enable_verification'])('PRAGMA %s', (pragma) => {
  it.each(QUERIES)('%s: pushed, and DuckDB\'s answer', async (_name, sql, marker) => {
    const q = sql();
    await conn.run('SET vortex_pushdown = false');
    const want = await answerText(conn, q);
    await conn.run('RESET vortex_pushdown');
    expect(await explain(conn, q)).toMatch(marker ?? /Pushed Aggregates/);
    await conn.run(`PRAGMA ${pragma}`);
    try {
      expect(await answerText(conn, q)).toBe(want);
    } finally {
      await conn.run(pragma === 'verify_serializer' ? 'PRAGMA disable_verify_serializer' : 'PRAGMA disable_verification');
    }
  });
});

describe('the scans the optimizer plants', () => {
  it.each(['vortex_scan_aggregate', 'vortex_scan_grouped'])('%s is in the catalog but refuses to be called', async (name) => {
    expect(await answerText(conn, `SELECT * FROM ${name}()`)).toMatch(new RegExp(`Binder Error: ${name} is not for queries`));
  });
});
