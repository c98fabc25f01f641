import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPushed, openDb, rows, show, sqlString, tempDir } from './helpers';

interface SeedRow {
  type: string;
  values: string;
  fn: string;
  duckdb: unknown;
  vortex: unknown;
  pushable: boolean;
}

// The seed's tables as data; CI lays shared/ next to the checkout.
const seedPath = [join(__dirname, '..', '..', 'shared', 'coherence', 'seed-matrix.json'), join(__dirname, 'fixtures', 'seed-matrix.json')]
  .find((p) => { try { readFileSync(p); return true; } catch { return false; } })!;
const seed: SeedRow[] = JSON.parse(readFileSync(seedPath, 'utf8')).rows;

/** The seed writes doubles as "NaN"/"inf"/"-inf" and SQL NULL as null. */
function expected(v: unknown): string {
  if (v === 'NaN') return 'NaN';
  if (v === 'inf') return 'Infinity';
  if (v === '-inf') return '-Infinity';
  return show(v);
}

/** `['nan', 1, NULL]` as a list of `type` (each element cast on its own: DuckDB would unify them first). */
export function typedList(values: string, type: string): string {
  const items = values.trim().slice(1, -1).split(',').map((e) => e.trim()).filter((e) => e.length > 0);
  return `[${items.map((e) => (e.toUpperCase() === 'NULL' ? `NULL::${type}` : `CAST(${e} AS ${type})`)).join(', ')}]::${type}[]`;
}

function normalize(v: unknown): string {
  return typeof v === 'bigint' ? String(v) : show(v);
}

describe('seed coherence matrix', () => {
  const dir = tempDir();

  it.each(seed.map((r, i) => [i, `${r.fn}(${r.type} ${r.values})`, r] as const))('row %i: %s', async (i, _name, row) => {
    const { conn } = await openDb();
    await conn.run(`CREATE TABLE t AS SELECT unnest(${typedList(row.values, row.type)}) AS x`);
    const file = `${dir}/seed-${i}.vtx`;
    await conn.run(`COPY t TO ${sqlString(file)} (FORMAT vortex)`);
    const q = (from: string) => `SELECT ${row.fn}(x) FROM ${from}`;
    const vtx = `vortex_scan(${sqlString(file)})`;

    if (row.duckdb === 'error') {
      await expect(conn.run(q('t'))).rejects.toThrow();
      await expect(conn.run(q(vtx))).rejects.toThrow();
      return;
    }
    const native = await conn.runAndReadAll(q('t'));
    const pushed = await conn.runAndReadAll(q(vtx));
    expect(await isPushed(conn, q(vtx))).toBe(row.pushable);
    await conn.run('SET vortex_pushdown = false');
    expect(await isPushed(conn, q(vtx))).toBe(false);
    const unpushed = await conn.runAndReadAll(q(vtx));

    const value = (r: typeof native) => normalize(r.getRowsJS()[0][0]);
    expect(value(native)).toBe(expected(row.duckdb)); // the seed's DuckDB column still holds
    expect(value(pushed)).toBe(value(native));
    expect(value(unpushed)).toBe(value(native));
    expect(pushed.columnTypes().map(String)).toEqual(native.columnTypes().map(String));
    expect(unpushed.columnTypes().map(String)).toEqual(native.columnTypes().map(String));
  });

  it('covers every row of the seed', async () => {
    expect(seed.length).toBeGreaterThan(30);
    // Sanity: the matrix is what the epic says, including the mismatches it reports.
    expect(seed.some((r) => r.vortex === 0 && r.duckdb === null && r.fn === 'sum')).toBe(true);
    const { conn } = await openDb();
    expect((await rows(conn, 'SELECT 1'))[0][0]).toBe(1);
  });
});
