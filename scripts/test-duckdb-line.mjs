#!/usr/bin/env node
// Runs the subset of the suite listed in vitest.duckdb-line.config.ts against another DuckDB
// line (scripts/duckdb-lines.json), e.g. `node scripts/test-duckdb-line.mjs 1.5.5`:
//   1. installs that line's @duckdb/node-api into .cache/node-api-<version>/ (git-ignored),
//   2. builds the addon for it (build/duckdb-<version>/, incremental),
//   3. runs vitest with @duckdb/node-api resolved to that installation.
// Further arguments go to vitest (e.g. a reporter). VORTEX_SKIP_BUILD=1 skips step 2.
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ensureNodeApi, LINES, root } from './duckdb-headers.mjs';

const [duckdb, ...vitestArgs] = process.argv.slice(2);
const line = LINES.find((l) => l.duckdb === duckdb);
if (!line) {
  process.stderr.write(`usage: test-duckdb-line.mjs <${LINES.map((l) => l.duckdb).join('|')}> [vitest args]\n`);
  process.exit(2);
}
const env = { ...process.env, DUCKDB_VORTEX_NODE_API: line.nodeApi };
// In this workspace DuckDB 1.5's headers lie in ../shared/duckdb-headers beside the checkout (no
// registry carries them); elsewhere the build gets them from DuckDB's tag archive (duckdb-headers.mjs).
const shared = resolve(root, '..', 'shared', 'duckdb-headers');
if (!env.DUCKDB_VORTEX_HEADERS && !env.DUCKDB_VORTEX_SOURCE_URL && existsSync(shared)) env.DUCKDB_VORTEX_HEADERS = shared;
const dir = ensureNodeApi(line.nodeApi);
if (process.env.VORTEX_SKIP_BUILD !== '1') {
  execFileSync(process.execPath, [join(root, 'scripts', 'build-native.mjs')], { cwd: root, stdio: 'inherit', env });
}
const vitest = join(dirname(createRequire(join(root, 'package.json')).resolve('vitest/package.json')), 'vitest.mjs');
const r = spawnSync(process.execPath, [vitest, 'run', '--config', 'vitest.duckdb-line.config.ts', ...vitestArgs], {
  cwd: root, stdio: 'inherit', env: { ...env, VORTEX_NODE_API_DIR: dir, VORTEX_EXPECT_DUCKDB: line.duckdb },
});
process.exit(r.status ?? 1);
