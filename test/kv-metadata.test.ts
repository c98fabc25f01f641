// COPY ... (FORMAT vortex, KV_METADATA {...}) and vortex_kv_metadata, against Parquet's writer and
// parquet_kv_metadata on the same options; the footer's version 5 (docs/FORMAT.md) against forged
// footers.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { answerText, openDb, scalar, sqlString, tempDir } from './helpers';
import { forge, intStats, plainFixed, TYPE } from './workers/vtx-forge';

const dir = tempDir('vtx-kv-metadata-');
let conn: DuckDBConnection;

/** The answer over files written by both formats with the same COPY options; names made equal. */
async function both(options: string, query: (fn: string, path: string) => string, target = 'f', select = 'SELECT i, i * 1.5 AS d FROM range(3000) r(i)'): Promise<[string, string]> {
  const out: string[] = [];
  for (const [format, ext, fn] of [['parquet', 'parquet', 'parquet_kv_metadata'], ['vortex', 'vtx', 'vortex_kv_metadata']]) {
    const path = join(dir, `${format}-${target}${target.endsWith('/') ? '' : `.${ext}`}`);
    const copied = await conn.run(`COPY (${select}) TO ${sqlString(path.replace(/\/$/, ''))} (FORMAT ${format}${options})`).then(() => '', (e: Error) => `error: ${e.message.split('\n')[0]}`);
    const answer = copied || await answerText(conn, query(fn, target.endsWith('/') ? `${path}**/*.${ext}` : path));
    out.push(answer.replaceAll(`${dir}/${format}-`, `${dir}/`).replaceAll(`.${ext}`, '.EXT').replaceAll('parquet_kv_metadata', 'FN')
      .replaceAll('vortex_kv_metadata', 'FN').replace(/^error: (\w+ Error: )(vortex: )?/, 'error: $1'));
  }
  return [out[0], out[1]];
}

beforeAll(async () => {
  ({ conn } = await openDb());
});

describe('KV_METADATA', () => {
  it('stores the pairs as Parquet does, and vortex_kv_metadata returns them as parquet_kv_metadata', async () => {
    for (const kv of [
      "{a: 1, 'b c': 'text', d: '\\x00\\xff'::BLOB, e: NULL, f: [1, 2], g: 'é', h: 1.5::DOUBLE, i: DATE '2024-01-02', j: {x: 1}}",
      "{' ': ''}",
      "{k: repeat('x', 100000)}",
      "{a: 1, b: 2, c: 3, z: 'last'}",
    ]) {
      const [parquet, vortex] = await both(`, KV_METADATA ${kv}`, (fn, path) => `SELECT file_name, key, value, typeof(key), typeof(value) FROM ${fn}(${sqlString(path)})`);
      expect(parquet.startsWith('error:'), `${kv}: ${parquet}`).toBe(false);
      expect(vortex, kv).toBe(parquet);
    }
  });

  it('has none without the option, and refuses what is not a STRUCT', async () => {
    const [p0, v0] = await both('', (fn, path) => `SELECT count(*) FROM ${fn}(${sqlString(path)})`, 'none');
    expect(v0).toBe(p0);
    expect(v0).toContain('"0n"');
    for (const bad of ["'abc'", '1', '[1, 2]']) {
      const [parquet, vortex] = await both(`, KV_METADATA ${bad}`, () => 'SELECT 1', 'bad');
      expect(parquet).toMatch(/^error: Binder Error/);
      expect(vortex).toMatch(/^error: Binder Error: KV_METADATA must be a STRUCT/);
    }
  });

  it('writes the pairs into every file of a partitioned or rotated COPY, read over globs and lists', async () => {
    for (const [options, target] of [[', PARTITION_BY (p)', 'parts/'], [", FILE_SIZE_BYTES '20KB', ROW_GROUP_SIZE 1000", 'rotated/']]) {
      const [parquet, vortex] = await both(`, KV_METADATA {run: 7, who: 'me'}${options}`,
        (fn, path) => `SELECT key, value, count(*) > 1, count(DISTINCT file_name) = count(*) FROM ${fn}(${sqlString(path)}) GROUP BY ALL ORDER BY ALL`,
        target, 'SELECT i % 3 AS p, i, hash(i) AS h FROM range(20000) r(i)');
      expect(vortex, options).toBe(parquet);
    }
    const files = readdirSync(join(dir, 'vortex-parts'), { recursive: true }).map(String).filter((f) => f.endsWith('.vtx')).map((f) => join(dir, 'vortex-parts', f));
    const list = `[${files.map(sqlString).join(', ')}]`;
    expect(await scalar(conn, `SELECT count(*) FROM vortex_kv_metadata(${list})`)).toBe(BigInt(files.length * 2));
  });

  it('marks only files with pairs as format version 5, and reads them as before', async () => {
    const version = async (p: string) => scalar(conn, `SELECT DISTINCT format_version FROM vortex_metadata(${sqlString(p)})`);
    const plain = join(dir, 'v-plain.vtx');
    const kv = join(dir, 'v-kv.vtx');
    await conn.run(`COPY (SELECT i FROM range(10) r(i)) TO ${sqlString(plain)} (FORMAT vortex, SKETCHES false)`);
    await conn.run(`COPY (SELECT i FROM range(10) r(i)) TO ${sqlString(kv)} (FORMAT vortex, SKETCHES false, KV_METADATA {a: 1})`);
    expect(await version(plain)).toBe(1);
    expect(await version(kv)).toBe(5);
    expect(await answerText(conn, `SELECT sum(i), count(*) FROM ${sqlString(kv)}`)).toBe(await answerText(conn, `SELECT sum(i), count(*) FROM ${sqlString(plain)}`));
  });

  it('reads forged version-5 footers: binary pairs; a count past the footer or a newer version is an error naming the file', async () => {
    const column = [{ name: 'c', type: TYPE.BIGINT }];
    const zones = [{ rows: 2, chunks: [{ body: plainFixed([1n, 2n], 8), stats: intStats([1n, 2n], 8) }] }];
    const good = join(dir, 'forged-good.vtx');
    writeFileSync(good, forge(column, zones, 5, [], { pairs: [[new Uint8Array([0, 255]), new Uint8Array([])], [Buffer.from('k'), Buffer.from('v')]] }));
    const pairs = (await conn.runAndReadAll(`SELECT hex(key), hex(value) FROM vortex_kv_metadata(${sqlString(good)})`)).getRowsJS();
    expect(pairs).toEqual([["00FF", ""], ["6B", "76"]]);
    expect(await answerText(conn, `SELECT sum(c) FROM ${sqlString(good)}`)).toContain('3');
    const lying = join(dir, 'forged-count.vtx');
    writeFileSync(lying, forge(column, zones, 5, [], { count: 1000, pairs: [[Buffer.from('k'), Buffer.from('v')]] }));
    expect(await answerText(conn, `SELECT * FROM vortex_kv_metadata(${sqlString(lying)})`)).toMatch(new RegExp(`vortex: file "${lying.replaceAll('/', '\\/')}" is not a valid \\.vtx file: footer declares 1000 items`));
    const newer = join(dir, 'forged-v9.vtx');
    writeFileSync(newer, forge(column, zones, 9));
    expect(await answerText(conn, `SELECT * FROM ${sqlString(newer)}`)).toMatch(/forged-v9\.vtx" is not a valid \.vtx file: unsupported format version 9 \(this reader supports 1 to 8\)/);
  });
});
