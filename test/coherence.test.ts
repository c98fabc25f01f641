import { version } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root, seedPath, vtx } from './cli-helpers';
import { DEV } from './lines';

interface SeedRow {
  type: string;
  values: string;
  fn: string;
  duckdb: unknown;
  vortex: unknown;
  pushable: boolean;
}

type Outcome = { value: string; type: string } | { error: string; error_type: string } | { unsupported: string };

interface ReportCase {
  id: string;
  source: 'seed' | 'extra';
  seed_index?: number;
  group: string;
  type: string;
  values: string;
  fn: string;
  query: string;
  zones: number;
  documented: Record<string, unknown> | null;
  measured: {
    duckdb: Outcome;
    vortex: Outcome;
    vortex_duckdb: Outcome;
    vortex_duckdb_pushdown_off: Outcome;
    exact?: Outcome;
    pushed: boolean;
    pushed_with_pushdown_off: boolean;
  };
  rules: { push: boolean; reason: string; expect_pushed: boolean };
  verdict: string;
  problems: string[];
}

const seedFile = seedPath();
const seed: SeedRow[] = JSON.parse(readFileSync(seedFile, 'utf8')).rows;

/** The seed's spelling of a value: null is SQL NULL, doubles may be "NaN"/"inf"/"-inf". */
function seedText(v: unknown): string {
  return v === null ? 'NULL' : String(v);
}

/** A measured outcome in the seed's spelling. */
function text(o: Outcome): string {
  if ('value' in o) return o.value;
  if ('unsupported' in o) return 'unsupported';
  return 'error';
}

let report: { duckdb: string; summary: Record<string, number>; cases: ReportCase[] };
let markdown: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  ensureBuilt();
  const json = await vtx(['coherence', '--format', 'json']);
  expect(json.stderr).toBe('');
  expect(json.code).toBe(0);
  report = JSON.parse(json.stdout);
  markdown = await vtx(['coherence', '--format', 'md']);
});

describe('vtx coherence --format json', async () => {
  it('lists every seed row, in order, with measured columns', async () => {
    const seedCases = report.cases.filter((c) => c.source === 'seed');
    expect(seedCases).toHaveLength(seed.length);
    seedCases.forEach((c, i) => {
      expect(c.seed_index).toBe(i);
      expect({ type: c.type, values: c.values, fn: c.fn }).toEqual({ type: seed[i].type, values: seed[i].values, fn: seed[i].fn });
      expect(c.documented).not.toBeNull();
      for (const k of ['duckdb', 'vortex', 'vortex_duckdb', 'vortex_duckdb_pushdown_off'] as const) {
        expect(Object.keys(c.measured[k]).length, `${c.id} ${k}`).toBeGreaterThan(0);
      }
      expect(typeof c.measured.pushed).toBe('boolean');
    });
  });

  it('every verdict is a match', async () => {
    const bad = report.cases.filter((c) => c.verdict !== 'match').map((c) => `${c.id}: ${c.problems.join('; ')}`);
    expect(bad).toEqual([]);
    expect(report.summary.mismatches).toBe(0);
    expect(report.summary.matches).toBe(report.cases.length);
  });

  it('verdicts hold up: pushed == pushdown off == DuckDB, and pushed is what the rules decide', async () => {
    for (const c of report.cases) {
      // Float sums DuckDB rounds along the way: the pushed answer is the exact one, rounded once.
      expect(c.measured.vortex_duckdb, c.id).toEqual(c.measured.exact ?? c.measured.duckdb);
      expect(c.measured.vortex_duckdb_pushdown_off, c.id).toEqual(c.measured.exact ?? c.measured.duckdb);
      expect(c.measured.pushed, c.id).toBe(c.rules.expect_pushed);
      expect(c.measured.pushed_with_pushdown_off, c.id).toBe(false);
    }
  });

  it("the DuckDB column is the seed's DuckDB column, and pushed is the seed's pushable", async () => {
    for (const c of report.cases.filter((x) => x.source === 'seed')) {
      const row = seed[c.seed_index!];
      expect(text(c.measured.duckdb), c.id).toBe(seedText(row.duckdb));
      expect(c.measured.pushed, c.id).toBe(row.pushable);
    }
  });

  it("the Vortex column reproduces the seed's Vortex values", async () => {
    for (const c of report.cases.filter((x) => x.source === 'seed')) {
      expect(text(c.measured.vortex), `${c.id} ${c.fn}(${c.type} ${c.values})`).toBe(seedText(seed[c.seed_index!].vortex));
    }
    const find = (type: string, values: string, fn: string) =>
      report.cases.find((c) => c.source === 'seed' && c.type === type && c.values === values && c.fn === fn)!;
    expect(text(find('BIGINT', '[NULL, NULL]', 'sum').measured.vortex)).toBe('0');
    expect(text(find('BIGINT', '[NULL, NULL]', 'avg').measured.vortex)).toBe('NaN');
    expect(text(find('DOUBLE', "['nan', 1, 2, NULL]", 'count').measured.vortex)).toBe('2');
    expect(report.summary.vortex_reproduces_seed).toBe(seed.length);
  });

  it('goes beyond the seed: overflow, -0.0, empty files, all-NULL zones, collations, count(*)', async () => {
    const extra = report.cases.filter((c) => c.source === 'extra');
    const has = (pred: (c: ReportCase) => boolean, what: string) => expect(extra.some(pred), what).toBe(true);
    has((c) => c.type.startsWith('DECIMAL') && c.fn === 'sum' && /99999999999999999\.90/.test(text(c.measured.duckdb)), 'DECIMAL sum past 2^63');
    has((c) => c.type === 'HUGEINT' && c.fn === 'sum' && 'error' in c.measured.duckdb, 'HUGEINT overflow');
    has((c) => c.type === 'UBIGINT' && c.fn === 'sum' && text(c.measured.duckdb) === '36893488147419103230', 'UBIGINT sum');
    has((c) => c.values.includes("'-0.0'") && text(c.measured.duckdb) === '-0', '-0.0');
    has((c) => c.values.includes('0 rows') && c.fn === 'count_star' && text(c.measured.duckdb) === '0', 'empty file count(*)');
    has((c) => c.values.includes('0 rows') && c.fn === 'sum' && text(c.measured.duckdb) === 'NULL' && text(c.measured.vortex) === '0', 'empty file sum');
    has((c) => c.zones >= 3 && c.values.startsWith('[NULL, NULL,') && c.fn === 'sum' && c.measured.pushed, 'all-NULL zones mixed with values');
    has((c) => c.query.includes('COLLATE') && !c.measured.pushed, 'collation');
    has((c) => c.fn === 'count_star' && c.measured.pushed, 'count(*)');
  });
});

// docs/COHERENCE.md is measured on the dev dependency's DuckDB; every other release a suite runs on
// (scripts/test-duckdb-line.mjs) must give the same document but for its "Measured on" line.
const duckdb = version().replace(/^v/, '');
const doc = 'COHERENCE.md';

describe(`docs/${doc} (here on DuckDB ${duckdb})`, async () => {
  const body = (text: string) => text.replace(/^Measured on DuckDB v[\d.]+ /m, 'Measured on DuckDB ');
  it('is what `vtx coherence --format md` prints today, on the dev dependency\'s DuckDB', async () => {
    expect(markdown.stderr).toBe('');
    expect(markdown.code).toBe(0);
    const committed = readFileSync(join(root, 'docs', doc), 'utf8');
    // On failure: node dist/cli/main.js coherence --format md > docs/COHERENCE.md
    if (duckdb === DEV.duckdb) expect(committed).toBe(markdown.stdout);
    // Under another release every case, value, type and error is the same: only "Measured on" differs.
    else expect(body(markdown.stdout)).toBe(body(committed));
  });

  it('is deterministic: no paths, dates or timings', async () => {
    expect(markdown.stdout).not.toMatch(/\/tmp\/|vtx-coherence-|\d{4}-\d{2}-\d{2}T|\d+(\.\d+)? ms\b/);
  });
});

describe('the seed shipped in the package', async () => {
  it('is a verbatim copy of the shared seed matrix', async () => {
    const shipped = JSON.parse(readFileSync(join(root, 'src', 'coherence', 'seed-matrix.json'), 'utf8'));
    expect(shipped).toEqual(JSON.parse(readFileSync(seedFile, 'utf8')));
    const built = JSON.parse(readFileSync(join(root, 'dist', 'coherence', 'seed-matrix.json'), 'utf8'));
    expect(built).toEqual(shipped);
  });
});
