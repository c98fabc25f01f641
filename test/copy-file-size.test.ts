import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { answerText, openDb, sqlString, tempDir } from './helpers';

// COPY ... (FORMAT vortex, FILE_SIZE_BYTES n), as Parquet has it (issues 23 and 24): the target is
// a directory, a new file is started once the current one has passed n bytes (checked between
// zones, so files end a little past n), and each file is written atomically like any other COPY.

const dir = tempDir('vtx-file-size-');
let conn: DuckDBConnection;

beforeAll(async () => {
  ({ conn } = await openDb());
  await conn.run(`CREATE TABLE t AS SELECT i, hash(i) AS h, 'name ' || (hash(i * 7) % 100000)::VARCHAR AS s
    FROM range(400000) r(i)`);
});

const files = (d: string) => readdirSync(d).filter((f) => f.endsWith('.vtx')).sort();

/** Both ways DuckDB plans a COPY: in batches kept in order, or in parallel. */
const ORDERS: Array<[string, boolean]> = [['preserving order', true], ['in parallel', false]];

/** COPY t to the directory `out` with these options, insertion order kept or not. */
async function copyTo(out: string, ordered: boolean, options: string): Promise<void> {
  await conn.run(`SET preserve_insertion_order = ${ordered}`);
  try {
    await conn.run(`COPY t TO ${sqlString(out)} (FORMAT vortex, ${options})`);
  } finally {
    await conn.run('RESET preserve_insertion_order');
  }
}

describe('COPY with FILE_SIZE_BYTES', () => {
  it.each(ORDERS)('splits the output into files of about that size, %s, and reads back the same rows', async (_, ordered) => {
    const out = join(dir, ordered ? 'ordered' : 'parallel');
    await copyTo(out, ordered, "FILE_SIZE_BYTES '1MB', ROW_GROUP_SIZE 20000");
    const names = files(out);
    expect(names.length).toBeGreaterThan(2);
    expect(readdirSync(out).filter((f) => f.includes('.tmp'))).toEqual([]);
    const sizes = names.map((f) => statSync(join(out, f)).size);
    // Every file but the last has passed the limit; none is more than a few zones past it.
    for (const size of sizes.slice(0, -1)) {
      expect(size).toBeGreaterThanOrEqual(1_000_000);
      expect(size).toBeLessThan(4_000_000);
    }
    const glob = `vortex_scan(${sqlString(join(out, '*.vtx'))})`;
    const sql = (src: string) => `SELECT count(*), sum(i), sum(h), count(DISTINCT s), min(s), max(s) FROM ${src}`;
    expect(await answerText(conn, sql(glob))).toBe(await answerText(conn, sql('t')));
    expect(await answerText(conn, `SELECT * FROM ${glob} EXCEPT SELECT * FROM t`)).toBe(await answerText(conn, 'SELECT * FROM t WHERE false'));
    // Order across files is not kept, by Parquet's writer either: DuckDB writes rotated files
    // without batch indexes.
  });

  it('combines with PARTITION_BY as Parquet does (DuckDB 1.4 refuses the combination for every format)', async () => {
    const copy = (fmt: string, ext: string) => conn.run(`COPY (SELECT i % 2 AS k, * FROM t) TO ${sqlString(join(dir, `partitioned-${ext}`))}
      (FORMAT ${fmt}, PARTITION_BY (k), FILE_SIZE_BYTES '1MB', ROW_GROUP_SIZE 20000)`);
    const parquet = await copy('parquet', 'parquet').then(() => null, (e: Error) => e.message);
    const vortex = await copy('vortex', 'vtx').then(() => null, (e: Error) => e.message);
    expect(vortex).toBe(parquet);
    if (vortex === null) {
      const out = join(dir, 'partitioned-vtx');
      for (const k of ['k=0', 'k=1']) expect(files(join(out, k)).length).toBeGreaterThan(1);
      const glob = `vortex_scan(${sqlString(join(out, '*', '*.vtx'))})`;
      const sql = (src: string) => `SELECT k, count(*), sum(i) FROM ${src} GROUP BY k ORDER BY k`;
      expect(await answerText(conn, sql(glob))).toBe(await answerText(conn, sql('(SELECT i % 2 AS k, * FROM t)')));
    }
  });

  it.each(ORDERS)('starts a new file every ROW_GROUPS_PER_FILE zones as Parquet does, %s', async (_, ordered) => {
    const out = join(dir, ordered ? 'zones-ordered' : 'zones-parallel');
    await copyTo(out, ordered, 'ROW_GROUPS_PER_FILE 3, ROW_GROUP_SIZE 20000');
    const names = files(out);
    const zones: number[] = [];
    for (const name of names) {
      const rows = (await conn.runAndReadAll(`SELECT count(DISTINCT zone) FROM vortex_metadata(${sqlString(join(out, name))})`)).getRowsJS();
      zones.push(Number(rows[0][0]));
    }
    // 400,000 rows in zones of at most 20,000: 20 zones or more, 3 a file, a few more where both
    // threads flush at once (Parquet's writer says the same of its row groups).
    expect(zones.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(20);
    for (const n of zones.slice(0, -1)) {
      expect(n).toBeGreaterThanOrEqual(3);
      expect(n).toBeLessThanOrEqual(6);
    }
    expect(zones[zones.length - 1]).toBeLessThanOrEqual(6);
    const glob = `vortex_scan(${sqlString(join(out, '*.vtx'))})`;
    const sql = (src: string) => `SELECT count(*), sum(i), sum(h), count(DISTINCT s), min(s), max(s) FROM ${src}`;
    expect(await answerText(conn, sql(glob))).toBe(await answerText(conn, sql('t')));
  });

  it('refuses a ROW_GROUPS_PER_FILE below 1', async () => {
    await expect(conn.run(`COPY t TO ${sqlString(join(dir, 'bad-zones'))} (FORMAT vortex, ROW_GROUPS_PER_FILE 0)`)).rejects.toThrow(/ROW_GROUPS_PER_FILE must be at least 1, got 0/);
  });

  it('refuses a size that is not one', async () => {
    await expect(conn.run(`COPY t TO ${sqlString(join(dir, 'bad'))} (FORMAT vortex, FILE_SIZE_BYTES 'lots')`)).rejects.toThrow(/lots|must have a number/);
  });
});
