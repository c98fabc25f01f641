// DuckDB's security settings apply to .vtx exactly as to Parquet: for each setting, every
// operation is run on a Parquet file and on the same data as .vtx, and both must succeed or
// both fail with the same DuckDB error (the file name aside).
import { DuckDBInstance, version, type DuckDBConnection } from '@duckdb/node-api';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerVortex } from '../src/index';
import { sqlString, tempDir } from './helpers';

type Fmt = 'parquet' | 'vtx';
const FORMAT: Record<Fmt, string> = { parquet: 'parquet', vtx: 'vortex' };
const READER: Record<Fmt, string> = { parquet: 'read_parquet', vtx: 'vortex_scan' };
/** DuckDB's minor line: its own access rules differ between 1.4 and 1.5 (both formats alike). */
const duckdbLine = version().replace(/^v/, '').split('.').slice(0, 2).join('.');

/** Outcome of a statement: "ok" or the error with the format's names made neutral. */
async function outcome(conn: DuckDBConnection, sql: string): Promise<string> {
  try {
    await conn.run(sql);
    return 'ok';
  } catch (e) {
    const msg = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    return msg.replace(/\.parquet|\.vtx/g, '.EXT').replace(/_parquet|_vtx/g, '_EXT');
  }
}

describe('DuckDB security settings, .vtx against Parquet', () => {
  const root = tempDir('vtx-security-');
  const allowed = join(root, 'allowed');
  const denied = join(root, 'denied');

  // Fresh data for each setting (COPY may overwrite it).
  async function makeFiles(tag: string): Promise<void> {
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    await registerVortex(conn);
    for (const d of [allowed, denied]) {
      mkdirSync(join(d, tag), { recursive: true });
      for (const fmt of ['parquet', 'vtx'] as Fmt[]) {
        for (const name of ['a', 'b']) {
          await conn.run(`COPY (SELECT i AS x FROM range(100) r(i)) TO ${sqlString(join(d, tag, `${name}.${fmt}`))} (FORMAT ${FORMAT[fmt]})`);
        }
      }
    }
    // Links to a file of the denied directory, from inside the allowed one (and the denied one).
    for (const fmt of ['parquet', 'vtx'] as Fmt[]) {
      for (const d of [allowed, denied]) symlinkSync(join(denied, tag, `a.${fmt}`), join(d, tag, `link.${fmt}`));
    }
  }

  /** Every operation, for one format, in a directory; `n` numbers the files it creates. */
  function operations(fmt: Fmt, dir: string, n: number): Array<[name: string, sql: string]> {
    const f = (name: string) => sqlString(join(dir, `${name}.${fmt}`));
    const F = FORMAT[fmt];
    const R = READER[fmt];
    return [
      ['read', `SELECT sum(x) FROM ${R}(${f('a')})`],
      ['read, count(*) (pushed for .vtx)', `SELECT count(*) FROM ${R}(${f('a')})`],
      ['read a list', `SELECT count(*) FROM ${R}([${f('a')}, ${f('b')}])`],
      ['read a glob', `SELECT count(*) FROM ${R}(${sqlString(join(dir, `*.${fmt}`))})`],
      ['replacement scan', `SELECT count(x) FROM ${f('a')}`],
      ['read through a symlink', `SELECT count(*) FROM ${R}(${f('link')})`],
      ['read with ..', `SELECT count(*) FROM ${R}(${sqlString(join(dir, '..', '..', 'denied', dir.split('/').pop()!, `a.${fmt}`))})`],
      ['COPY to a new file', `COPY (SELECT 1 AS x) TO ${f(`new${n}`)} (FORMAT ${F})`],
      ['COPY over a file', `COPY (SELECT 2 AS x) TO ${f('b')} (FORMAT ${F})`],
      ['COPY without temporary file', `COPY (SELECT 3 AS x) TO ${f(`direct${n}`)} (FORMAT ${F}, USE_TMP_FILE false)`],
      ['COPY per thread', `COPY (SELECT 4 AS x) TO ${sqlString(join(dir, `pt${n}_${fmt}`))} (FORMAT ${F}, PER_THREAD_OUTPUT true)`],
      ['COPY partitioned', `COPY (SELECT 5 AS x, 1 AS p) TO ${sqlString(join(dir, `part${n}_${fmt}`))} (FORMAT ${F}, PARTITION_BY p)`],
    ];
  }

  /** Runs every operation in both directories for both formats; returns them side by side. */
  async function compare(conn: DuckDBConnection, tag: string): Promise<Array<{ op: string; where: string; parquet: string; vtx: string }>> {
    const out = [];
    for (const [where, dir] of [['allowed', join(allowed, tag)], ['denied', join(denied, tag)]]) {
      const p = operations('parquet', dir, 1);
      const v = operations('vtx', dir, 1);
      for (let k = 0; k < p.length; k++) {
        out.push({ op: p[k][0], where, parquet: await outcome(conn, p[k][1]), vtx: await outcome(conn, v[k][1]) });
      }
    }
    return out;
  }

  function expectSame(results: Array<{ op: string; where: string; parquet: string; vtx: string }>): void {
    const differ = results.filter((r) => r.parquet !== r.vtx);
    expect(differ, JSON.stringify(differ, null, 1)).toEqual([]);
  }

  const permission = /^Permission Error: Cannot access (file|directory) ".*" - file system operations are disabled by configuration$/;

  beforeAll(async () => {
    for (const tag of ['open', 'off', 'dirs', 'paths', 'prepared', 'register-late']) await makeFiles(tag);
  });

  it('with default settings everything works', async () => {
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    await registerVortex(conn);
    const results = await compare(conn, 'open');
    expectSame(results);
    expect(results.filter((r) => r.vtx !== 'ok')).toEqual([]);
  });

  it('enable_external_access = false refuses every file operation', async () => {
    const conn = await (await DuckDBInstance.create(':memory:', { enable_external_access: 'false' })).connect();
    await registerVortex(conn);
    const results = await compare(conn, 'off');
    expectSame(results);
    for (const r of results) expect(r.vtx, `${r.op} (${r.where})`).toMatch(permission);
    expect(readdirSync(join(allowed, 'off')).filter((f) => f.includes('new') || f.includes('tmp'))).toEqual([]);
  });

  it('allowed_directories admits that directory only', async () => {
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    await registerVortex(conn);
    await conn.run(`SET allowed_directories = [${sqlString(join(allowed, 'dirs') + '/')}]`);
    await conn.run('SET enable_external_access = false');
    const results = await compare(conn, 'dirs');
    expectSame(results);
    for (const r of results) {
      if (r.where === 'denied') expect(r.vtx, `${r.op} (${r.where})`).toMatch(permission);
    }
    // Everything inside the directory works, the escapes (symlink aside, as in DuckDB) do not. DuckDB
    // 1.5 refuses more of them itself (a glob, a symlink), for Parquet alike (expectSame above).
    const refused = results.filter((r) => r.where === 'allowed' && r.vtx !== 'ok').map((r) => r.op);
    if (duckdbLine === '1.4') expect(refused).toEqual(['read with ..']);
    else expect(refused).toContain('read with ..');
  });

  it('allowed_paths admits exactly those files', async () => {
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    await registerVortex(conn);
    const paths: string[] = [];
    for (const fmt of ['parquet', 'vtx'] as Fmt[]) {
      for (const name of ['a', 'b', 'link', 'new1', 'direct1']) paths.push(join(allowed, 'paths', `${name}.${fmt}`));
    }
    await conn.run(`SET allowed_paths = [${paths.map(sqlString).join(', ')}]`);
    await conn.run('SET enable_external_access = false');
    const results = await compare(conn, 'paths');
    expectSame(results);
    const ok = results.filter((r) => r.vtx === 'ok').map((r) => `${r.op} (${r.where})`);
    // COPY over an existing file goes through DuckDB's temporary "tmp_<name>", which is not
    // listed: refused for both formats. A new file, or USE_TMP_FILE false, writes the listed path.
    // DuckDB 1.5 admits more itself under allowed_paths, for Parquet alike (expectSame above).
    expect(ok).toEqual(duckdbLine === '1.4' ? [
      'read (allowed)', 'read, count(*) (pushed for .vtx) (allowed)', 'read a list (allowed)', 'replacement scan (allowed)',
      'read through a symlink (allowed)', 'COPY to a new file (allowed)', 'COPY without temporary file (allowed)',
    ] : expect.arrayContaining(['read (allowed)', 'read a list (allowed)', 'COPY to a new file (allowed)', 'COPY without temporary file (allowed)']));
    expect(existsSync(join(allowed, 'paths', 'direct1.vtx'))).toBe(true);
    expect(readdirSync(join(allowed, 'paths')).filter((f) => f.includes('tmp'))).toEqual([]);
  });

  it('a prepared statement or a cached footer does not outlive enable_external_access = false', async () => {
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    await registerVortex(conn);
    const file = (fmt: Fmt) => sqlString(join(allowed, 'prepared', `a.${fmt}`));
    const prepared: Record<Fmt, Awaited<ReturnType<DuckDBConnection['prepare']>>[]> = { parquet: [], vtx: [] };
    for (const fmt of ['parquet', 'vtx'] as Fmt[]) {
      for (const sql of [`SELECT count(*) FROM ${READER[fmt]}(${file(fmt)})`, `SELECT sum(x) FROM ${READER[fmt]}(${file(fmt)})`, `SELECT * FROM ${READER[fmt]}(${file(fmt)}) WHERE x > 3`]) {
        expect(await outcome(conn, sql)).toBe('ok'); // also caches the footer
        prepared[fmt].push(await conn.prepare(sql));
      }
    }
    await conn.run('SET enable_external_access = false');
    for (let k = 0; k < prepared.vtx.length; k++) {
      const run = async (fmt: Fmt) => {
        try {
          await prepared[fmt][k].run();
          return 'ok';
        } catch (e) {
          return (e instanceof Error ? e.message : String(e)).split('\n')[0].replace(/\.parquet|\.vtx/g, '.EXT');
        }
      };
      const [p, v] = [await run('parquet'), await run('vtx')];
      expect(v).toBe(p);
      expect(v).toMatch(permission);
    }
  });

  it('registering after the lock-down changes nothing', async () => {
    const conn = await (await DuckDBInstance.create(':memory:', { enable_external_access: 'false' })).connect();
    await registerVortex(conn);
    const v = await outcome(conn, `SELECT * FROM vortex_scan(${sqlString(join(allowed, 'register-late', 'a.vtx'))})`);
    expect(v).toMatch(permission);
    const k = await outcome(conn, `SELECT * FROM vortex_kernel(${sqlString(join(allowed, 'register-late', 'a.vtx'))}, 'x', 'sum')`);
    expect(k).toMatch(permission);
  });
});
