#!/usr/bin/env node
// Runs the differential suites under DuckDB's own statement verification (PRAGMA
// enable_verification; test/helpers.ts, VERIFY): DuckDB runs every query also unoptimized, copied,
// serialized and deserialized, and prepared, and fails it where the results differ. A pushed plan
// must survive all of that (issue 25).
//   node scripts/test-verification.mjs [--line <duckdb version>] [--full] [vitest args]
// Without --full, the property tests run a seeded subset (what .ci/run runs); --line runs on
// another DuckDB line through scripts/test-duckdb-line.mjs (--line X.Y.Z).
// Not here: test/float-sums.test.ts, whose pushed sums are by design the exact ones, which
// DuckDB's verifier compares with its own sums rounded in row order.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { root } from './duckdb-headers.mjs';

export const VERIFIED_SUITES = [
  'pushdown-property', 'filters', 'filters-property', 'grouped-pushdown', 'grouped-order', 'nested', 'wide-sums',
  'changing-files', 'expression-filters', 'zone-bounds', 'bucket-keys', 'distinct-counts', 'sorted-groups', 'type-paths', 'file-row-number', 'read-vortex',
  'all-types-aggregates',
];

const args = process.argv.slice(2);
const lineAt = args.indexOf('--line');
const line = lineAt >= 0 ? args[lineAt + 1] : null;
const full = args.includes('--full');
const rest = args.filter((a, i) => a !== '--full' && i !== lineAt && i !== lineAt + 1);

const env = { ...process.env, VORTEX_VERIFY: '1' };
if (!full) {
  env.VORTEX_FC_RUNS = process.env.VORTEX_FC_RUNS ?? '8';
  env.VORTEX_FC_FILTER_RUNS = process.env.VORTEX_FC_FILTER_RUNS ?? '8';
}
// The verifier runs every query four more times (and the largest test near 100 s on this 2-core
// machine): the 120 s default of vitest.config.ts would fail a correct run on a slower or busier one.
const files = [...VERIFIED_SUITES.map((s) => `test/${s}.test.ts`), '--testTimeout=900000', '--hookTimeout=900000'];
const r = line
  ? spawnSync(process.execPath, [join(root, 'scripts', 'test-duckdb-line.mjs'), line, ...files, ...rest], { cwd: root, stdio: 'inherit', env })
  : spawnSync(process.execPath, [join(dirname(createRequire(join(root, 'package.json')).resolve('vitest/package.json')), 'vitest.mjs'), 'run', ...files, ...rest], {
      cwd: root, stdio: 'inherit', env,
    });
process.exit(r.status ?? 1);
