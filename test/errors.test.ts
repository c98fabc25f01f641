import { existsSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openDb, rows, sqlString, tempDir } from './helpers';

describe('bad input gives a DuckDB error naming the file and the problem', () => {
  const dir = tempDir();
  let conn: DuckDBConnection;
  let good: string;

  beforeAll(async () => {
    ({ conn } = await openDb());
    good = `${dir}/good.vtx`;
    await conn.run(`COPY (SELECT i AS x, i::VARCHAR AS s FROM range(5000) r(i)) TO ${sqlString(good)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`);
  });

  const scan = (p: string) => `SELECT * FROM vortex_scan(${sqlString(p)})`;

  it('a missing path', async () => {
    const p = `${dir}/missing.vtx`;
    await expect(conn.run(scan(p))).rejects.toThrow(new RegExp(`(No files found|No such file|does not exist).*missing\\.vtx|missing\\.vtx.*(No files|No such file|does not exist)`, 'i'));
  });

  it('a glob matching nothing', async () => {
    await expect(conn.run(scan(`${dir}/nothing-*.vtx`))).rejects.toThrow(/No files found that match the pattern.*nothing-\*\.vtx/);
  });

  it('a file that is not .vtx', async () => {
    const p = `${dir}/not.vtx`;
    writeFileSync(p, 'a,b\n1,2\n'.repeat(100));
    await expect(conn.run(scan(p))).rejects.toThrow(/file ".*not\.vtx" is not a valid \.vtx file: not a \.vtx file \(magic bytes missing\)/);
    const tiny = `${dir}/tiny.vtx`;
    writeFileSync(tiny, 'VTX');
    await expect(conn.run(scan(tiny))).rejects.toThrow(/tiny\.vtx" is not a valid \.vtx file: file is too small/);
  });

  it('a truncated file', async () => {
    const p = `${dir}/truncated.vtx`;
    writeFileSync(p, readFileSync(good));
    truncateSync(p, readFileSync(good).length - 100);
    await expect(conn.run(scan(p))).rejects.toThrow(/truncated\.vtx" is not a valid \.vtx file/);
  });

  it('a corrupted data segment, on a full scan and on a pushed aggregate that must decode', async () => {
    const p = `${dir}/corrupt.vtx`;
    const bytes = Buffer.from(readFileSync(good));
    bytes[10] ^= 0xff; // inside the first segment
    writeFileSync(p, bytes);
    await expect(conn.run(scan(p))).rejects.toThrow(/corrupt\.vtx" is not a valid \.vtx file: checksum mismatch in segment/);
  });

  it('a corrupted footer', async () => {
    const p = `${dir}/corrupt-footer.vtx`;
    const bytes = Buffer.from(readFileSync(good));
    bytes[bytes.length - 20] ^= 0x01;
    writeFileSync(p, bytes);
    await expect(conn.run(`SELECT count(*) FROM vortex_scan(${sqlString(p)})`)).rejects.toThrow(/corrupt-footer\.vtx" is not a valid \.vtx file: footer checksum mismatch/);
  });

  it('files of one glob with different schemas', async () => {
    await conn.run(`COPY (SELECT 1 AS x) TO ${sqlString(`${dir}/mix-a.vtx`)} (FORMAT vortex)`);
    await conn.run(`COPY (SELECT 'one' AS x) TO ${sqlString(`${dir}/mix-b.vtx`)} (FORMAT vortex)`);
    // As read_parquet: the first file's types, later files cast to them (test/union-by-name.test.ts).
    await expect(conn.run(scan(`${dir}/mix-*.vtx`))).rejects.toThrow(/Could not convert string 'one' to INT32/);
    await conn.run(`COPY (SELECT 2 AS y) TO ${sqlString(`${dir}/mix-c.vtx`)} (FORMAT vortex)`);
    await expect(conn.run(scan(`${dir}/mix-[ac].vtx`))).rejects.toThrow(/failed to read file ".*mix-c\.vtx": schema mismatch in glob: column "x" was read from the original file ".*mix-a\.vtx", but could not be found in file ".*mix-c\.vtx" \(columns: y\)[\s\S]*union_by_name := true/);
  });

  it('bad COPY options', async () => {
    const p = sqlString(`${dir}/opt.vtx`);
    await expect(conn.run(`COPY (SELECT 1) TO ${p} (FORMAT vortex, COMPRESSION brotli)`)).rejects.toThrow(/unknown compression "brotli"/);
    await expect(conn.run(`COPY (SELECT 1) TO ${p} (FORMAT vortex, ROW_GROUP_SIZE 0)`)).rejects.toThrow(/row_group_size must be between/i);
    await expect(conn.run(`COPY (SELECT 1) TO ${p} (FORMAT vortex, BOGUS 1)`)).rejects.toThrow(/bogus/i);
  });

  it('a COPY that fails halfway leaves no file, and leaves an existing file untouched', async () => {
    const failing = (p: string) =>
      `COPY (SELECT CASE WHEN i = 300000 THEN error('boom at row 300000') ELSE i END AS x FROM range(600000) r(i)) TO ${sqlString(p)} (FORMAT vortex, ROW_GROUP_SIZE 10000)`;
    const fresh = `${dir}/fresh.vtx`;
    await expect(conn.run(failing(fresh))).rejects.toThrow(/boom at row 300000/);
    expect(existsSync(fresh)).toBe(false);
    const before = readFileSync(good);
    await expect(conn.run(failing(good))).rejects.toThrow(/boom/);
    expect(readFileSync(good).equals(before)).toBe(true);
    expect(await rows(conn, `SELECT count(*) FROM vortex_scan(${sqlString(good)})`)).toEqual([[5000n]]);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});
