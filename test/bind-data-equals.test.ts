import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { version } from '@duckdb/node-api';
import { loadAddon } from '../src/native';
import { openDb, sqlString, tempDir } from './helpers';

// DuckDB treats two scans whose bind data are Equal as interchangeable. Everything that changes
// what a scan returns must therefore take part in the comparison.

interface TestHooks {
  scanBindDataEqual(connection: unknown, a: string, b: string): boolean;
}

let conn: DuckDBConnection;
let hooks: TestHooks;
const dir = tempDir('vtx-equals-');
const file = join(dir, 'f.vtx');
const other = join(dir, 'g.vtx');
const hiveFile = join(dir, 'part=1', 'h.vtx');
const nullFile = join(dir, 'n.vtx');

const equal = (a: string, b: string) =>
  hooks.scanBindDataEqual((conn as unknown as { connection: unknown }).connection, a, b);

beforeAll(async () => {
  ({ conn } = await openDb());
  hooks = (loadAddon(version()) as unknown as { __test: TestHooks }).__test;
  await conn.run(`COPY (SELECT i::BIGINT AS x, i::INTEGER AS y FROM range(1000) t(i)) TO ${sqlString(file)} (FORMAT vortex)`);
  await conn.run(`COPY (SELECT i::BIGINT AS x, i::INTEGER AS y FROM range(10) t(i)) TO ${sqlString(other)} (FORMAT vortex)`);
  await conn.run(`COPY (SELECT CASE WHEN i % 2 = 0 THEN NULL ELSE i END::BIGINT AS x, CASE WHEN i % 3 = 0 THEN NULL ELSE i END::INTEGER AS y FROM range(1000) t(i)) TO ${sqlString(nullFile)} (FORMAT vortex)`);
  mkdirSync(join(dir, 'part=1'));
  await conn.run(`COPY (SELECT i::BIGINT AS x, i::INTEGER AS y FROM range(10) t(i)) TO ${sqlString(hiveFile)} (FORMAT vortex)`);
});

describe('pushed aggregates', () => {
  const q = (aggs: string, path = file) => `SELECT ${aggs} FROM vortex_scan(${sqlString(path)})`;
  it('are equal only for the same aggregates over the same files', () => {
    expect(equal(q('sum(x)'), q('sum(x)'))).toBe(true);
    expect(equal(q('min(x)'), q('max(x)'))).toBe(false);
    expect(equal(q('min(x)'), q('min(y)'))).toBe(false);
    expect(equal(q('avg(x)'), q('sum(x)'))).toBe(false);
    expect(equal(q('sum(x), min(x)'), q('min(x), sum(x)'))).toBe(false);
    expect(equal(q('sum(x)'), q('sum(x)', other))).toBe(false);
  });
});

describe('vortex_scan', () => {
  const q = (args: string, where = '') => `SELECT * FROM vortex_scan(${args})${where}`;
  it('is equal only for the same files, columns, options and zone predicates', () => {
    expect(equal(q(sqlString(file)), q(sqlString(file)))).toBe(true);
    expect(equal(q(sqlString(file)), q(sqlString(other)))).toBe(false);
    expect(equal(q(sqlString(file)), q(`${sqlString(file)}, filename := true`))).toBe(false);
    expect(equal(q(sqlString(hiveFile)), q(`${sqlString(hiveFile)}, hive_partitioning := false`))).toBe(false);
    // Comparisons become DuckDB table filters, compared by DuckDB with the scan; the null
    // filters the scan notes for zone skipping are its own.
    expect(equal(q(sqlString(nullFile), ' WHERE x IS NULL'), q(sqlString(nullFile), ' WHERE x IS NOT NULL'))).toBe(false);
    expect(equal(q(sqlString(nullFile), ' WHERE x IS NULL'), q(sqlString(nullFile), ' WHERE y IS NULL'))).toBe(false);
    expect(equal(q(sqlString(nullFile), ' WHERE x IS NULL'), q(sqlString(nullFile), ' WHERE x IS NULL'))).toBe(true);
  });
});
