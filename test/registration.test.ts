import { DuckDBInstance, version } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { checkDuckDBVersion, normalizeVersion, registerVortex } from '../src/index';
import { loadAddon } from '../src/native';
import { rows, scalar } from './helpers';

describe('registerVortex', () => {
  it('registers the extension, its functions and settings', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    expect(await registerVortex(conn)).toEqual({ registered: true });
    const ext = await rows(conn, "SELECT loaded, install_mode FROM duckdb_extensions() WHERE extension_name = 'vortex'");
    expect(ext).toEqual([[true, 'STATICALLY_LINKED']]);
    const fns = await rows(conn, "SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_name LIKE 'vortex%' ORDER BY 1");
    expect(fns.map((r) => r[0])).toEqual(['vortex_buffer_info', 'vortex_cache_info', 'vortex_kernel', 'vortex_metadata', 'vortex_scan']);
    const settings = await rows(conn, "SELECT name, value FROM duckdb_settings() WHERE name LIKE 'vortex_pushdown%' ORDER BY name");
    expect(settings).toEqual([
      ['vortex_pushdown', 'true'], ['vortex_pushdown_avg', 'true'], ['vortex_pushdown_count', 'true'],
      ['vortex_pushdown_max', 'true'], ['vortex_pushdown_min', 'true'], ['vortex_pushdown_sum', 'true'],
    ]);
    expect(await rows(conn, "SELECT value FROM duckdb_settings() WHERE name = 'vortex_metadata_cache_size'")).toEqual([['64MiB']]);
  });

  it('is harmless to call twice and from a second connection of the same database', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const a = await instance.connect();
    const b = await instance.connect();
    expect((await registerVortex(a)).registered).toBe(true);
    expect((await registerVortex(a)).registered).toBe(false);
    expect((await registerVortex(b)).registered).toBe(false);
    // Registered once: one table function set and one COPY format, and both connections use them.
    expect(await scalar(b, "SELECT count(*) FROM duckdb_functions() WHERE function_name = 'vortex_scan' AND function_type = 'table'"))
      .toBe(2n);
    await a.run("COPY (SELECT 42 AS x) TO '/tmp/vtx-reg-test.vtx' (FORMAT vortex)");
    expect(await scalar(b, "SELECT x FROM vortex_scan('/tmp/vtx-reg-test.vtx')")).toBe(42);
  });

  it('registers separately in each database', async () => {
    const one = await (await DuckDBInstance.create(':memory:')).connect();
    const two = await (await DuckDBInstance.create(':memory:')).connect();
    expect((await registerVortex(one)).registered).toBe(true);
    expect((await registerVortex(two)).registered).toBe(true);
  });

  it('rejects anything that is not a DuckDBConnection with a clear error', async () => {
    for (const bad of [undefined, null, 42, 'conn', {}, { connection: {} }]) {
      await expect(registerVortex(bad as never)).rejects.toThrow(/expected a DuckDBConnection from @duckdb\/node-api/);
    }
  });

  it('applies pushdown options to the connection', async () => {
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    await registerVortex(conn, { pushdown: { sum: false, min: false } });
    expect(await scalar(conn, "SELECT current_setting('vortex_pushdown_sum')")).toBe(false);
    expect(await scalar(conn, "SELECT current_setting('vortex_pushdown_min')")).toBe(false);
    expect(await scalar(conn, "SELECT current_setting('vortex_pushdown_max')")).toBe(true);
  });
});

describe('version guard', () => {
  it('was compiled against the DuckDB that is loaded', () => {
    expect(normalizeVersion(loadAddon().duckdbVersion)).toBe(normalizeVersion(version()));
  });

  it('accepts equal versions in any spelling', () => {
    expect(() => checkDuckDBVersion('v1.4.4', '1.4.4')).not.toThrow();
    expect(() => checkDuckDBVersion('1.4.4-dev12', 'v1.4.4')).not.toThrow();
  });

  it('refuses a mismatch with a message naming both versions', () => {
    expect(() => checkDuckDBVersion('v1.5.0', 'v1.4.4')).toThrow(/compiled against DuckDB v1\.4\.4.*loaded DuckDB v1\.5\.0/);
    expect(() => checkDuckDBVersion('v1.4.3', 'v1.4.4')).toThrow(/v1\.4\.4.*v1\.4\.3/);
    expect(() => checkDuckDBVersion('garbage', 'v1.4.4')).toThrow(/cannot read a DuckDB version/);
  });
});
