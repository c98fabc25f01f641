import { version } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGGREGATE_FLAGS, PUSHDOWN_SETTINGS, type PushdownSettingKey } from '../src/catalog';
import { decideGroupedPushdown, pushdownRules, pushdownSettings, setPushdown, type AggregateName, type PushdownFlags } from '../src/index';
import { loadAddon, type NativeCatalog } from '../src/native';
import { isPushed, openDb, rows, sqlString, tempDir } from './helpers';

// The extension points' tables (issue 56): the native rows are the one place a setting's or an
// aggregate's names are written, and everything else — what DuckDB registered, the TypeScript
// flags and the rules module — must agree with them.
const catalog: NativeCatalog = loadAddon(version()).catalog;

describe('the settings table', () => {
  let registered: Map<string, { value: string; description: string; type: string }>;

  beforeAll(async () => {
    const { conn } = await openDb();
    registered = new Map(
      (await rows(conn, "SELECT name, value, description, input_type FROM duckdb_settings() WHERE name LIKE 'vortex%'")).map(
        ([name, value, description, type]) => [String(name), { value: String(value), description: String(description), type: String(type) }],
      ),
    );
  });

  it('registers every row, and nothing else, as DuckDB reports it', () => {
    expect([...registered.keys()].sort()).toEqual(catalog.settings.map((s) => s.name).sort());
    for (const s of catalog.settings) {
      expect(registered.get(s.name), s.name).toEqual({ value: s.default, description: s.description, type: s.type });
    }
  });

  it('gives every TypeScript flag, and only those, the setting its row names', () => {
    const keyed = catalog.settings.filter((s) => s.key !== null);
    expect(Object.fromEntries(keyed.map((s) => [s.key, s.name]))).toEqual({ ...PUSHDOWN_SETTINGS });
    expect([...pushdownSettings].sort()).toEqual(keyed.map((s) => s.name).sort());
  });

  it('puts every feature switch, and no other setting, under the master switch', () => {
    const master = catalog.settings.filter((s) => s.master).map((s) => s.name);
    expect(master.length).toBeGreaterThan(0);
    expect(master.every((n) => n.startsWith(`${PUSHDOWN_SETTINGS.enabled}_`))).toBe(true);
    expect(master.sort()).toEqual(Object.values(PUSHDOWN_SETTINGS).filter((n) => n !== PUSHDOWN_SETTINGS.enabled).sort());
  });

  it('sets every flag through setPushdown: its own setting, and no other', async () => {
    const { conn } = await openDb();
    const values = async () =>
      new Map((await rows(conn, "SELECT name, value FROM duckdb_settings() WHERE name LIKE 'vortex_pushdown%'")).map(([n, v]) => [String(n), String(v)]));
    for (const key of Object.keys(PUSHDOWN_SETTINGS) as PushdownSettingKey[]) {
      const before = await values();
      const flags: PushdownFlags = { [key]: false };
      await setPushdown(conn, flags);
      const after = await values();
      for (const [name, value] of after) expect(value, `${key} -> ${name}`).toBe(name === PUSHDOWN_SETTINGS[key] ? 'false' : before.get(name));
      await setPushdown(conn, { [key]: true });
    }
  });
});

describe('the aggregates table', () => {
  const bound = catalog.aggregates.flatMap((a) => (a.rule !== null ? [{ a, name: a.rule }] : a.names.map((name) => ({ a, name }))));

  it('names every aggregate TypeScript knows, and each with the same switch', () => {
    expect(bound.map((b) => b.name).sort()).toEqual(Object.keys(AGGREGATE_FLAGS).sort());
    for (const { a, name } of bound) expect(PUSHDOWN_SETTINGS[AGGREGATE_FLAGS[name as AggregateName]], name).toBe(a.setting);
  });

  it('has rules for every aggregate, each under its aggregate\'s switch', () => {
    for (const name of Object.keys(AGGREGATE_FLAGS) as AggregateName[]) {
      const mine = pushdownRules.filter((r) => r.fn === name);
      expect(mine.length, name).toBeGreaterThan(0);
      for (const r of mine) expect(r.flag, `${r.fn}(${r.type})`).toBe(AGGREGATE_FLAGS[name]);
    }
  });

  it('declines per group exactly the aggregates its rows say are not answered per group', () => {
    for (const { a, name } of bound) {
      const pushedPerGroup = pushdownRules.filter((r) => r.fn === name).some((r) => decideGroupedPushdown(r.fn, r.type === '*' ? 'BIGINT' : r.type).push);
      expect(pushedPerGroup, name).toBe(a.notPerGroup === null);
    }
  });

  it('switches each aggregate off with its own setting, in SQL', async () => {
    const { conn } = await openDb();
    const file = `${tempDir()}/c.vtx`;
    await conn.run(`COPY (SELECT i AS x FROM range(1000) r(i)) TO ${sqlString(file)} (FORMAT vortex)`);
    const sqlOf: Partial<Record<AggregateName, string>> = {
      count_star: 'count(*)', count: 'count(x)', sum: 'sum(x)', avg: 'avg(x)', min: 'min(x)', max: 'max(x)',
      count_distinct: 'count(DISTINCT x)', approx_count_distinct: 'approx_count_distinct(x)',
    };
    await conn.run('SET vortex_pushdown_cost_based = false');
    for (const [name, call] of Object.entries(sqlOf)) {
      const sql = `SELECT ${call} FROM vortex_scan(${sqlString(file)})`;
      const setting = catalog.aggregates.find((a) => a.rule === name || (a.rule === null && a.names.includes(name)))!.setting;
      expect(await isPushed(conn, sql), `${call} pushed`).toBe(true);
      await conn.run(`SET ${setting} = false`);
      expect(await isPushed(conn, sql), `${call} with ${setting} off`).toBe(false);
      await conn.run(`RESET ${setting}`);
    }
  });
});
