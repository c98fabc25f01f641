#!/usr/bin/env node
// The supported DuckDB releases (scripts/duckdb-lines.json) as shell-friendly lists, for .ci/run and
// scripts/test-lines.mjs:
//   node scripts/lines.mjs all      every release
//   node scripts/lines.mjs newest   the newest release of each minor line (what CI runs fully)
//   node scripts/lines.mjs oldest   the oldest release of each minor line (CI also builds and smoke-tests these)
//   node scripts/lines.mjs dev      the dev dependency's release (what `npm test` runs on)
import { fileURLToPath } from 'node:url';
import { buildTarget, installedNodeApi, LINES } from './duckdb-headers.mjs';

const minor = (v) => v.split('.').slice(0, 2).join('.');

export function newest() {
  return LINES.filter((l, i) => i === LINES.length - 1 || minor(LINES[i + 1].duckdb) !== minor(l.duckdb)).map((l) => l.duckdb);
}

export function oldest() {
  return LINES.filter((l, i) => i === 0 || minor(LINES[i - 1].duckdb) !== minor(l.duckdb)).map((l) => l.duckdb);
}

export function dev() {
  const v = installedNodeApi();
  return v ? buildTarget(v).duckdb : null;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const what = process.argv[2];
  const lists = { all: () => LINES.map((l) => l.duckdb), newest, oldest, dev: () => [dev()].filter(Boolean) };
  if (!lists[what]) {
    process.stderr.write(`usage: lines.mjs <${Object.keys(lists).join('|')}>\n`);
    process.exit(2);
  }
  process.stdout.write(lists[what]().join(' ') + '\n');
}
