#!/usr/bin/env node
// `npm run prebuild`: one prebuilt binary per supported DuckDB release (scripts/duckdb-lines.json),
// built with node-gyp into prebuilds/<platform>-<arch>/duckdb-<version>/duckdb_vortex.node, which
// `npm pack` ships. Each line links the libduckdb of its own @duckdb/node-api (installed into
// .cache/ when it is not the one in node_modules). `--only 1.5.5` builds one line.
import { LINES } from './duckdb-headers.mjs';
import { buildWithGyp } from './build-gyp.mjs';

const i = process.argv.indexOf('--only');
const only = i > 0 ? process.argv[i + 1] : null;
try {
  for (const line of LINES.filter((l) => !only || l.duckdb === only)) {
    const started = Date.now();
    buildWithGyp({ nodeApi: line.nodeApi, prebuild: true });
    process.stderr.write(`[duckdb-vortex] prebuild for DuckDB ${line.duckdb}: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  }
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
}
