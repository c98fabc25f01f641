import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerVortex, setPushdown } from '../src/index';
import { isPushed, openDb, sqlString, tempDir } from './helpers';

describe('pushdown settings', () => {
  const dir = tempDir();
  let file: string;

  beforeAll(async () => {
    const { conn } = await openDb();
    file = `${dir}/s.vtx`;
    await conn.run(`COPY (SELECT i AS x FROM range(1000) r(i)) TO ${sqlString(file)} (FORMAT vortex)`);
  });

  const q = (fn: string) => `SELECT ${fn} FROM vortex_scan(${sqlString(file)})`;
  const FNS: Array<[flag: 'count' | 'sum' | 'avg' | 'min' | 'max', sql: string]> = [
    ['count', 'count(x)'], ['count', 'count(*)'], ['sum', 'sum(x)'], ['avg', 'avg(x)'], ['min', 'min(x)'], ['max', 'max(x)'],
  ];

  it.each(FNS)('vortex_pushdown_%s switches %s off and on, per connection', async (flag, fn) => {
    const instance = await DuckDBInstance.create(':memory:');
    const a = await instance.connect();
    const b = await instance.connect();
    await registerVortex(a);
    expect(await isPushed(a, q(fn))).toBe(true);
    await a.run(`SET vortex_pushdown_${flag} = false`);
    expect(await isPushed(a, q(fn))).toBe(false);
    expect(await isPushed(b, q(fn))).toBe(true); // the other connection is unaffected
    // Other families stay pushed on a.
    const other = FNS.find(([f]) => f !== flag)!;
    expect(await isPushed(a, q(other[1]))).toBe(true);
    await a.run(`SET vortex_pushdown_${flag} = true`);
    expect(await isPushed(a, q(fn))).toBe(true);
  });

  it('the master switch turns everything off', async () => {
    const { conn } = await openDb();
    await conn.run('SET vortex_pushdown = false');
    for (const [, fn] of FNS) expect(await isPushed(conn, q(fn))).toBe(false);
    await conn.run('RESET vortex_pushdown');
    for (const [, fn] of FNS) expect(await isPushed(conn, q(fn))).toBe(true);
  });

  it('SET GLOBAL reaches every connection', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const a = await instance.connect();
    await registerVortex(a);
    const b = await instance.connect();
    await a.run('SET GLOBAL vortex_pushdown_sum = false');
    expect(await isPushed(b, q('sum(x)'))).toBe(false);
    await a.run('SET GLOBAL vortex_pushdown_sum = true');
    expect(await isPushed(b, q('sum(x)'))).toBe(true);
  });

  it('setPushdown and registerVortex options do the same', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const a = await instance.connect();
    await registerVortex(a, { pushdown: { avg: false } });
    expect(await isPushed(a, q('avg(x)'))).toBe(false);
    expect(await isPushed(a, q('sum(x)'))).toBe(true);
    await setPushdown(a, { avg: true, max: false });
    expect(await isPushed(a, q('avg(x)'))).toBe(true);
    expect(await isPushed(a, q('max(x)'))).toBe(false);
    await setPushdown(a, { enabled: false });
    expect(await isPushed(a, q('count(*)'))).toBe(false);
    const b = await instance.connect();
    await setPushdown(a, { enabled: true, min: false }, { global: true });
    expect(await isPushed(b, q('min(x)'))).toBe(false);
    expect(await isPushed(b, q('count(*)'))).toBe(true);
    await expect(setPushdown(a, { bogus: true } as never)).rejects.toThrow(/unknown option flags.bogus/);
  });

  it('rules can narrow the allow-list at registration, never widen it', async () => {
    const { pushdownRules } = await import('../src/index');
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    await registerVortex(conn, { rules: pushdownRules.filter((r) => r.fn !== 'max') });
    expect(await isPushed(conn, q('max(x)'))).toBe(false);
    expect(await isPushed(conn, q('min(x)'))).toBe(true);
    const other = await (await DuckDBInstance.create(':memory:')).connect();
    await expect(registerVortex(other, { rules: [{ ...pushdownRules[0], fn: 'min', type: 'DOUBLE' }] }))
      .rejects.toThrow(/not on the allow-list/);
  });
});
