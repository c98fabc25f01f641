import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// The suite run against another DuckDB release than the dev dependency's (scripts/test-duckdb-line.mjs
// sets VORTEX_NODE_API_DIR to a directory where that @duckdb/node-api is installed, and builds the
// addon for it): this representative subset, or with VORTEX_LINE_FULL=1 (--full) every test file.
// Add a test file to the subset here by name.
export const DUCKDB_LINE_TESTS = [
  'duckdb-versions', // loader, version guard, supported lines
  'registration',
  'roundtrip',
  'seed-matrix',
  'not-pushed', // pushdown off / not applicable
  'settings',
  'pushdown-property', // at reduced size (VORTEX_FC_RUNS below)
  'rules',
  'coherence', // the seed matrix and more through `vtx coherence`: docs/COHERENCE.md but for its "Measured on" line
  'changing-files', // prepared statements over rewritten files and globs (issue 9)
  'bind-data-equals',
  'wide-sums',
  'float-sums', // exact float sums (issue 22)
  'exact-float-sums', // the same float sum in every plan, and SELECT lists pushed in part (issue 55)
  'cost-model', // pushdown declined where it would cost more; the master switch; EXPLAIN's reasons (issue 54)
  'verification', // pushed plans under PRAGMA verify_serializer and enable_verification (issue 25)
  'expression-filters', // filters the scan takes out of DuckDB's plan (issue 20)
  'bucket-keys', // GROUP BY date_trunc(...) and other bucket functions (issue 20)
  'zone-bounds', // filters through monotone functions and calendar fields, decided from zone min/max
  'distinct-counts', // count(DISTINCT) and approx_count_distinct from the file (issue 21)
  'cross-line', // files written by the other line: sketches used only where the hash matches
  'remote-store', // request counts on the simulated object store, beside the line's own Parquet reader (issue 58)
  'copy-file-size', // COPY ... FILE_SIZE_BYTES: DuckDB's rotation
  'copy-return-stats', // COPY ... RETURN_STATS, as the Parquet writer reports
  'copy-execution', // ordered COPY fed by one thread, zones encoded on DuckDB's task scheduler
  'copy-errors', // a failed COPY leaves the old file (DuckDB 1.5 removes a failed COPY's target itself)
  'grouped-pushdown', // at reduced size (VORTEX_FC_RUNS)
  'grouped-order', // ORDER BY taken into the grouped scan: plan shapes differ between lines
  'filters',
  'filters-property',
  'encodings', // ALP, bit-packing, dictionary vectors
  'nested', // nested and ENUM columns (format version 3)
  'union-by-name', // files whose schemas differ, against read_parquet (issue 24)
  'hive-options', // hive partitions and filename as read_parquet takes them
  'file-row-number', // file_row_number := true as read_parquet takes it
  'kv-metadata', // COPY ... KV_METADATA and vortex_kv_metadata against Parquet's
  'read-vortex', // vortex_scan's other name
  'planner-string-stats', // VARCHAR statistics DuckDB's planner acts on (issue 23)
  'deferred-decode', // values decoded a vector at a time (issue 23)
  'segment-cache', // decompressed segments kept across queries (issue 23)
  'sorted-groups', // GROUP BY a key the zones are sorted by (issue 23)
  'entry-filters', // aggregated per dictionary entry
  'type-paths', // every type through every way a pushed aggregate reaches its rows
  'all-types-aggregates', // each pushable aggregate over every flat type of test_all_types()
  'time-ns', // TIME_NS stored as itself (format version 6)
  'geometry', // GEOMETRY stored as its WKB and CRS (format version 7; 1.4 reads a BLOB)
  'unnamed-structs', // row(...) values stored unnamed (format version 6)
];

const dir = process.env.VORTEX_NODE_API_DIR;
if (!dir) throw new Error('vitest.duckdb-line.config.ts: run it through scripts/test-duckdb-line.mjs (VORTEX_NODE_API_DIR is not set)');
const nodeApi = join(createRequire(join(resolve(dir), 'package.json')).resolve('@duckdb/node-api/package.json'), '..');

export default defineConfig({
  // Every import of @duckdb/node-api, from the tests and from src/, gets that line's package.
  resolve: { alias: [{ find: /^@duckdb\/node-api$/, replacement: nodeApi }] },
  test: {
    include: process.env.VORTEX_LINE_FULL === '1' ? ['test/**/*.test.ts'] : DUCKDB_LINE_TESTS.map((name) => `test/${name}.test.ts`),
    setupFiles: ['test/setup-duckdb-line.ts'],
    env: { VORTEX_FC_RUNS: process.env.VORTEX_FC_RUNS ?? '10', VORTEX_FC_FILTER_RUNS: process.env.VORTEX_FC_FILTER_RUNS ?? '10' },
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
