#!/usr/bin/env node
// `npm run test:lines`: every supported DuckDB release (scripts/duckdb-lines.json), as CI cannot in
// its time: prebuilds each release missing from prebuilds/<platform>-<arch>/, smoke-tests every one
// from a packed tarball next to its own node-api with no compiler (scripts/smoke-lines.mjs), then
// runs the representative subset (vitest.duckdb-line.config.ts) on each with its prebuilt binary.
// About an hour on two cores.
//   --only X.Y.Z,...   these releases
//   --smoke-only       the prebuilds and the smoke test only
//   --full             the whole suite on each release instead of the subset
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LINES, root } from './duckdb-headers.mjs';

const support = createRequire(import.meta.url)('./support.cjs');
const { values } = parseArgs({ options: { only: { type: 'string' }, 'smoke-only': { type: 'boolean' }, full: { type: 'boolean' } } });
const platform = `${process.platform}-${process.arch}`;
const log = (m) => process.stderr.write(`[test-lines] ${m}\n`);
const only = values.only ? values.only.split(',') : null;
const lines = LINES.filter((l) => (!only || only.includes(l.duckdb)) && support.nodeApiOf(l, platform));
const binary = (l) => join(root, 'prebuilds', platform, `duckdb-${l.duckdb}`, 'duckdb_vortex.node');
const node = (script, args, env = {}) =>
  spawnSync(process.execPath, [join(root, 'scripts', script), ...args], { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } }).status === 0;

const started = Date.now();
const missing = lines.filter((l) => !existsSync(binary(l)));
if (missing.length && !node('prebuild.mjs', ['--only', missing.map((l) => l.duckdb).join(','), '--no-smoke'])) {
  log('prebuild failed');
  process.exit(1);
}
const results = [];
results.push(['smoke test of every release from a packed tarball', node('smoke-lines.mjs', ['--only', lines.map((l) => l.duckdb).join(',')])]);
if (!values['smoke-only']) {
  for (const l of lines) {
    const ok = node('test-duckdb-line.mjs', [l.duckdb, ...(values.full ? ['--full'] : [])], { VORTEX_SKIP_BUILD: '1', VORTEX_ADDON_PATH: binary(l) });
    results.push([`${values.full ? 'whole suite' : 'subset'} on DuckDB ${l.duckdb}`, ok]);
  }
}
for (const [what, ok] of results) log(`${ok ? 'ok    ' : 'FAILED'} ${what}`);
log(`${results.filter(([, ok]) => ok).length} of ${results.length} passed in ${Math.round((Date.now() - started) / 60000)} min`);
process.exit(results.every(([, ok]) => ok) ? 0 : 1);
