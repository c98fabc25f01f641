// Preload (node -r ./scripts/with-node-api.cjs ...) that makes every require('@duckdb/node-api')
// load the one installed in VORTEX_NODE_API_DIR, e.g. .cache/node-api-X.Y.Z-r.N (see
// scripts/test-duckdb-line.mjs): runs the CLI against another DuckDB line, e.g.
//   VORTEX_NODE_API_DIR=.cache/node-api-X.Y.Z-r.N node -r ./scripts/with-node-api.cjs dist/cli/main.js coherence
const Module = require('node:module');
const path = require('node:path');

const dir = process.env.VORTEX_NODE_API_DIR;
if (dir) {
  const target = require.resolve('@duckdb/node-api', { paths: [path.resolve(dir)] });
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request === '@duckdb/node-api' ? target : resolve.call(this, request, ...rest);
  };
}
