import { readFileSync } from 'node:fs';
import seedFile from './seed-matrix.json';

/** A documented value as the seed writes it: SQL NULL is null, doubles may be "NaN"/"inf"/"-inf". */
export type SeedValue = string | number | null;

/** One row of `shared/coherence/seed-matrix.json`. */
export interface SeedRow {
  type: string;
  /** A DuckDB SQL list literal of the column's values. */
  values: string;
  fn: 'count' | 'sum' | 'avg' | 'min' | 'max';
  ansi: SeedValue;
  duckdb: SeedValue;
  datafusion: SeedValue;
  vortex: SeedValue;
  vortex_duckdb: SeedValue;
  pushable: boolean;
}

const FNS = new Set(['count', 'sum', 'avg', 'min', 'max']);

function isSeedValue(v: unknown): v is SeedValue {
  return v === null || typeof v === 'string' || typeof v === 'number';
}

/** Validates a parsed seed file; `where` names it in errors. */
export function parseSeed(data: unknown, where: string): SeedRow[] {
  const rows = (data as { rows?: unknown } | null)?.rows;
  if (!Array.isArray(rows)) throw new Error(`${where}: expected an object with a "rows" array`);
  return rows.map((r: Record<string, unknown>, i) => {
    const bad = (what: string) => new Error(`${where}: row ${i}: ${what}`);
    if (typeof r !== 'object' || r === null) throw bad('not an object');
    if (typeof r.type !== 'string' || typeof r.values !== 'string') throw bad('"type" and "values" must be strings');
    if (typeof r.fn !== 'string' || !FNS.has(r.fn)) throw bad(`unknown aggregate "${String(r.fn)}"`);
    if (typeof r.pushable !== 'boolean') throw bad('"pushable" must be a boolean');
    for (const k of ['ansi', 'duckdb', 'datafusion', 'vortex', 'vortex_duckdb']) {
      if (!isSeedValue(r[k])) throw bad(`"${k}" must be a string, a number or null`);
    }
    return r as unknown as SeedRow;
  });
}

/** The seed shipped inside the package (a verbatim copy of shared/coherence/seed-matrix.json). */
export function bundledSeed(): SeedRow[] {
  return parseSeed(seedFile, 'seed-matrix.json');
}

/** A seed file given on the command line. */
export function readSeed(path: string): SeedRow[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`cannot read seed file '${path}': ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path}: not valid JSON (${(e as Error).message})`);
  }
  return parseSeed(data, path);
}
