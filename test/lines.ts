import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The supported DuckDB releases as the tests see them: read from scripts/duckdb-lines.json, the one
// place that names them, so that adding a release changes no test.
export interface Line {
  duckdb: string;
  nodeApi: string;
  platforms?: Record<string, { nodeApi: string } | null>;
}

const root = join(__dirname, '..');
export const LINES: Line[] = JSON.parse(readFileSync(join(root, 'scripts', 'duckdb-lines.json'), 'utf8')).lines;

const minorOf = (v: string): string => v.split('.').slice(0, 2).join('.');

/** The newest release of each minor line (1.4, 1.5, ...), oldest line first: what CI runs fully. */
export const NEWEST: Line[] = LINES.filter((l, i) => i === LINES.length - 1 || minorOf(LINES[i + 1].duckdb) !== minorOf(l.duckdb));

/** The newest release of all. */
export const LATEST: Line = LINES[LINES.length - 1];

/** The release of the dev dependency (node_modules/@duckdb/node-api), which `npm test` runs on. */
export const DEV: Line = (() => {
  const v = JSON.parse(readFileSync(join(root, 'node_modules', '@duckdb', 'node-api', 'package.json'), 'utf8')).version as string;
  const line = LINES.find((l) => l.nodeApi === v || Object.values(l.platforms ?? {}).some((p) => p?.nodeApi === v)) ??
    LINES.find((l) => v.startsWith(`${l.duckdb}-`) || v === l.duckdb);
  if (!line) throw new Error(`the dev dependency @duckdb/node-api ${v} is not a supported release (scripts/duckdb-lines.json)`);
  return line;
})();

/** A release after every supported one (the newest with its patch number raised): unsupported by construction. */
export const UNSUPPORTED: string = (() => {
  const [a, b, c] = LATEST.duckdb.split('.').map(Number);
  return `${a}.${b}.${c + 1}`;
})();
