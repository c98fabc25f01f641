#!/usr/bin/env node
// `npm install` step: use a prebuilt binary (prebuilds/) or an existing build when one
// loads; otherwise build the addon — with cmake-js in a development checkout, with
// node-gyp (which ships with npm) everywhere else. DuckDB's headers are fetched from the
// npm registry and verified by scripts/duckdb-headers.mjs during either build.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const log = (m) => process.stderr.write(`[duckdb-vortex] ${m}\n`);

function loads() {
  try {
    require('@duckdb/node-api');
    require('node-gyp-build')(root);
    return true;
  } catch {
    return false;
  }
}

function resolveOrNull(id) {
  try {
    return require.resolve(id);
  } catch {
    return null;
  }
}

if (process.env.VORTEX_FORCE_BUILD !== '1' && loads()) {
  log('native addon present');
  process.exit(0);
}

const cmakeJs = existsSync(join(root, 'CMakeLists.txt')) ? resolveOrNull('cmake-js/bin/cmake-js') : null;
const run = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
if (cmakeJs) {
  log('building the native addon with cmake-js');
  run([cmakeJs, 'compile', '--out', 'build']);
} else {
  const gyp = process.env.npm_config_node_gyp || resolveOrNull('node-gyp/bin/node-gyp.js');
  if (!gyp) throw new Error('duckdb-vortex: no prebuilt binary fits this platform and node-gyp was not found to build one');
  log('building the native addon with node-gyp');
  run([gyp, 'rebuild']);
}
