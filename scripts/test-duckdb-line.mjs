#!/usr/bin/env node
// Runs the test suite against another DuckDB release than the dev dependency's
// (scripts/duckdb-lines.json), e.g. `node scripts/test-duckdb-line.mjs X.Y.Z` (or `npm run test:line -- X.Y.Z`):
//   1. installs that release's @duckdb/node-api into .cache/node-api-<version>/ (git-ignored),
//   2. builds the addon for it (build/duckdb-<version>/, incremental),
//   3. runs vitest with @duckdb/node-api resolved to that installation: the subset listed in
//      vitest.duckdb-line.config.ts, or with --full every test file.
// Further arguments go to vitest (e.g. a reporter or test files). VORTEX_SKIP_BUILD=1 skips step 2
// (a binary in prebuilds/ or build/ is then used as it is).
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ensureNodeApi, LINES, root } from './duckdb-headers.mjs';

const args = process.argv.slice(2);
const full = args.includes('--full');
const [duckdb, ...vitestArgs] = args.filter((a) => a !== '--full');
const line = LINES.find((l) => l.duckdb === duckdb);
if (!line) {
  process.stderr.write(`usage: test-duckdb-line.mjs <${LINES.map((l) => l.duckdb).join('|')}> [--full] [vitest args]\n`);
  process.exit(2);
}
const env = { ...process.env, DUCKDB_VORTEX_NODE_API: line.nodeApi, ...(full ? { VORTEX_LINE_FULL: '1' } : {}) };
const dir = ensureNodeApi(line.nodeApi);
if (process.env.VORTEX_SKIP_BUILD !== '1') {
  execFileSync(process.execPath, [join(root, 'scripts', 'build-native.mjs')], { cwd: root, stdio: 'inherit', env });
}
const vitest = join(dirname(createRequire(join(root, 'package.json')).resolve('vitest/package.json')), 'vitest.mjs');
const r = spawnSync(process.execPath, [vitest, 'run', '--config', 'vitest.duckdb-line.config.ts', ...vitestArgs], {
  cwd: root, stdio: 'inherit', env: { ...env, VORTEX_NODE_API_DIR: dir, VORTEX_EXPECT_DUCKDB: line.duckdb },
});
process.exit(r.status ?? 1);
