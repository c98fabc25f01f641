#!/usr/bin/env node
// `npm install` step: use the binary for the installed @duckdb/node-api's DuckDB when one is
// present and loads (prebuilds/<platform>-<arch>/duckdb-<v>/ or build/duckdb-<v>/); otherwise
// build it — with cmake-js in a development checkout, with node-gyp (which ships with npm)
// everywhere else. DuckDB's headers are obtained and verified by scripts/duckdb-headers.mjs.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildTarget, root } from './duckdb-headers.mjs';

const require = createRequire(join(root, 'package.json'));
const log = (m) => process.stderr.write(`[duckdb-vortex] ${m}\n`);

function loads(duckdb) {
  const candidates = [
    join(root, 'build', `duckdb-${duckdb}`, 'Release', 'duckdb_vortex.node'),
    join(root, 'prebuilds', `${process.platform}-${process.arch}`, `duckdb-${duckdb}`, 'duckdb_vortex.node'),
  ].filter((p) => existsSync(p));
  try {
    require('@duckdb/node-api');
    require(candidates[0]);
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

try {
  const target = buildTarget();
  if (process.env.VORTEX_FORCE_BUILD !== '1' && loads(target.duckdb)) {
    log(`native addon for DuckDB ${target.duckdb} present`);
    process.exit(0);
  }
  const script = existsSync(join(root, 'CMakeLists.txt')) && resolveOrNull('cmake-js/bin/cmake-js') ? 'build-native.mjs' : 'build-gyp.mjs';
  execFileSync(process.execPath, [join(root, 'scripts', script)], { cwd: root, stdio: 'inherit' });
} catch (e) {
  log(e.message.split('\n')[0]);
  process.exit(1);
}
