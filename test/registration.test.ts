import { DuckDBInstance, version } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { checkDuckDBVersion, normalizeVersion, pushdownRules, registerVortex } from '../src/index';
import { loadAddon } from '../src/native';
import { compileRules } from '../src/rules';
import { isPushed, rows, scalar } from './helpers';

/** The native handle behind a node-api object (TS-private there), as registerVortex reaches it. */
function nativeHandle(obj: object, field: 'connection' | 'prepared_statement' | 'appender'): unknown {
  return (obj as Record<typeof field, unknown>)[field];
}

describe('registerVortex', () => {
  it('registers the extension, its functions and settings', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    expect(await registerVortex(conn)).toEqual({ registered: true });
    const ext = await rows(conn, "SELECT loaded, install_mode FROM duckdb_extensions() WHERE extension_name = 'vortex'");
    expect(ext).toEqual([[true, 'STATICALLY_LINKED']]);
    const fns = await rows(conn, "SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_name LIKE '%vortex%' ORDER BY 1");
    expect(fns.map((r) => r[0])).toEqual(['read_vortex', 'vortex_buffer_info', 'vortex_cache_info', 'vortex_exact_avg', 'vortex_exact_favg', 'vortex_exact_fsum',
      'vortex_exact_sum', 'vortex_kernel', 'vortex_kv_metadata', 'vortex_metadata', 'vortex_scan', 'vortex_scan_aggregate', 'vortex_scan_grouped']);
    const settings = await rows(conn, "SELECT name, value FROM duckdb_settings() WHERE name LIKE 'vortex_pushdown%' ORDER BY name");
    expect(settings).toEqual([
      ['vortex_pushdown', 'true'], ['vortex_pushdown_approx_distinct', 'true'], ['vortex_pushdown_avg', 'true'],
      ['vortex_pushdown_cost_based', 'true'], ['vortex_pushdown_count', 'true'], ['vortex_pushdown_distinct', 'true'], ['vortex_pushdown_expressions', 'true'],
      ['vortex_pushdown_grouped', 'true'], ['vortex_pushdown_max', 'true'], ['vortex_pushdown_min', 'true'],
      ['vortex_pushdown_order', 'true'], ['vortex_pushdown_sorted_groups', 'true'], ['vortex_pushdown_sum', 'true'],
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

describe('attach() checks what it is given', () => {
  it('refuses node-bindings externals that are not connections (prepared statement, appender) with a TypeError', async () => {
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    await conn.run('CREATE TABLE t (x INTEGER)');
    const stmt = await conn.prepare('SELECT 1');
    const appender = await conn.createAppender('t');
    const addon = loadAddon(version());
    for (const foreign of [nativeHandle(stmt, 'prepared_statement'), nativeHandle(appender, 'appender')]) {
      let caught: unknown;
      try {
        addon.attach(foreign, compileRules(), false);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(TypeError);
      expect(String(caught)).toMatch(/expected the connection handle of @duckdb\/node-bindings.*got another native handle/);
    }
    appender.closeSync();
    // The connection itself is accepted and still works.
    expect(addon.attach(nativeHandle(conn, 'connection'), compileRules(), false)).toBe(true);
    expect(await scalar(conn, 'SELECT count(*) FROM t')).toBe(0n);
  });

  it('refuses values that are not handles with a TypeError', () => {
    const addon = loadAddon(version());
    for (const bad of [{}, { connection: 1 }, 42, 'conn', null, [], () => 0]) {
      expect(() => addon.attach(bad, compileRules(), false)).toThrow(TypeError);
      expect(() => addon.attach(bad, compileRules(), false)).toThrow(/expected the connection handle/);
    }
  });

  it('refuses malformed arguments and rules with TypeErrors naming the problem', async () => {
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    const handle = nativeHandle(conn, 'connection');
    const addon = loadAddon(version()) as unknown as { attach(...args: unknown[]): boolean };
    const [rule] = compileRules();
    expect(() => addon.attach(handle)).toThrow(TypeError);
    expect(() => addon.attach(handle, 'rules', false)).toThrow(/expected a DuckDB connection handle, an array and a boolean/);
    expect(() => addon.attach(handle, [rule], 'yes')).toThrow(TypeError);
    expect(() => addon.attach(handle, [42], false)).toThrow(/rule 0 must be an object/);
    expect(() => addon.attach(handle, [rule, { ...rule, fn: 7 }], false)).toThrow(/rule 1: field 'fn' must be a string/);
    expect(() => addon.attach(handle, [{ ...rule, skipNans: 'no' }], false)).toThrow(/rule 0: field 'skipNans' must be a boolean/);
    // A getter that throws: its JS error reaches the caller unchanged.
    const hostile = { ...rule, get type(): string { throw new RangeError('boom from a getter'); } };
    expect(() => addon.attach(handle, [hostile], false)).toThrow(/boom from a getter/);
    // Nothing was registered by the failed calls.
    expect(await scalar(conn, "SELECT count(*) FROM duckdb_extensions() WHERE extension_name = 'vortex' AND loaded")).toBe(0n);
    expect((await registerVortex(conn)).registered).toBe(true);
  });

  it('refuses a closed connection', async () => {
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    const handle = nativeHandle(conn, 'connection');
    conn.closeSync();
    expect(() => loadAddon(version()).attach(handle, compileRules(), false)).toThrow(/the connection is closed/);
  });
});

describe('registerVortex rules on an already registered database', () => {
  const q = (agg: string) => `SELECT ${agg} FROM vortex_scan('/tmp/vtx-reg-rules.vtx')`;
  const noMax = () => pushdownRules.filter((r) => r.fn !== 'max');

  async function database() {
    const instance = await DuckDBInstance.create(':memory:');
    return { a: await instance.connect(), b: await instance.connect() };
  }

  it('throws when a later call passes different rules, naming the difference', async () => {
    const { a, b } = await database();
    expect((await registerVortex(a, { rules: noMax() })).registered).toBe(true);
    const wider = registerVortex(b, { rules: pushdownRules });
    await expect(wider).rejects.toThrow(/already registered with other pushdown rules/);
    await expect(registerVortex(b, { rules: pushdownRules })).rejects.toThrow(/rules only in this call: max\(/);
    await expect(registerVortex(a, { rules: noMax().filter((r) => r.fn !== 'min') })).rejects.toThrow(/rules only in the database: min\(/);
    // The database keeps its first rules.
    await a.run("COPY (SELECT 1 AS x) TO '/tmp/vtx-reg-rules.vtx' (FORMAT vortex)");
    expect(await isPushed(b, q('max(x)'))).toBe(false);
    expect(await isPushed(b, q('min(x)'))).toBe(true);
  });

  it('is idempotent with the same rules, in any order', async () => {
    const { a, b } = await database();
    expect((await registerVortex(a, { rules: noMax() })).registered).toBe(true);
    expect((await registerVortex(b, { rules: [...noMax()].reverse() })).registered).toBe(false);
    expect((await registerVortex(a, { rules: [...noMax(), ...noMax()] })).registered).toBe(false);
  });

  it('without rules, accepts whatever the database was registered with', async () => {
    const { a, b } = await database();
    expect((await registerVortex(a, { rules: noMax() })).registered).toBe(true);
    expect((await registerVortex(b)).registered).toBe(false);
    await a.run("COPY (SELECT 1 AS x) TO '/tmp/vtx-reg-rules.vtx' (FORMAT vortex)");
    expect(await isPushed(b, q('max(x)'))).toBe(false);
  });

  it('a database registered without rules has the full allow-list: narrower rules later throw, the full list does not', async () => {
    const { a, b } = await database();
    expect((await registerVortex(a)).registered).toBe(true);
    await expect(registerVortex(b, { rules: noMax() })).rejects.toThrow(/already registered with other pushdown rules/);
    expect((await registerVortex(b, { rules: pushdownRules })).registered).toBe(false);
  });
});

describe('version guard', () => {
  it('was compiled against the DuckDB that is loaded', () => {
    expect(normalizeVersion(loadAddon(version()).duckdbVersion)).toBe(normalizeVersion(version()));
  });

  it('accepts equal versions in any spelling', () => {
    expect(() => checkDuckDBVersion('v3.4.4', '3.4.4')).not.toThrow();
    expect(() => checkDuckDBVersion('3.4.4-dev12', 'v3.4.4')).not.toThrow();
  });

  it('refuses a mismatch with a message naming both versions', () => {
    expect(() => checkDuckDBVersion('v3.5.0', 'v3.4.4')).toThrow(/compiled against DuckDB v3\.4\.4.*loaded DuckDB v3\.5\.0/);
    expect(() => checkDuckDBVersion('v3.4.3', 'v3.4.4')).toThrow(/v3\.4\.4.*v3\.4\.3/);
    expect(() => checkDuckDBVersion('garbage', 'v3.4.4')).toThrow(/cannot read a DuckDB version/);
  });
});
