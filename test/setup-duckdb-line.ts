// Setup of vitest.duckdb-line.config.ts: the tests must really run inside the DuckDB line asked
// for (VORTEX_EXPECT_DUCKDB), not the dev dependency's.
import { version } from '@duckdb/node-api';

const expected = process.env.VORTEX_EXPECT_DUCKDB;
if (expected && version() !== `v${expected}`) {
  throw new Error(`expected @duckdb/node-api to load DuckDB v${expected}, got ${version()}`);
}
