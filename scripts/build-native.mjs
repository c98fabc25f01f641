#!/usr/bin/env node
// Developer build with cmake-js, for the DuckDB of the installed @duckdb/node-api or of
// DUCKDB_VORTEX_NODE_API (see scripts/duckdb-headers.mjs). Output:
//   build/duckdb-<version>/Release/duckdb_vortex.node
// Extra arguments go to cmake-js (e.g. --parallel 2, the default; VORTEX_BUILD_JOBS sets it).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildTarget, ensureHeaders, libduckdbPath, root } from './duckdb-headers.mjs';

export function cmakeBuildDir(duckdb) {
  return join('build', `duckdb-${duckdb}`);
}

try {
  const target = buildTarget();
  // Fetch and verify everything up front, so that a missing input fails here with its message.
  await ensureHeaders(target.duckdb);
  libduckdbPath(target.nodeApi);
  const cmakeJs = createRequire(join(root, 'package.json')).resolve('cmake-js/bin/cmake-js');
  const args = process.argv.slice(2);
  if (!args.some((a) => a === '-p' || a.startsWith('--parallel'))) args.push('--parallel', process.env.VORTEX_BUILD_JOBS || '2');
  process.stderr.write(`[duckdb-vortex] building the native addon for DuckDB ${target.duckdb} (@duckdb/node-api ${target.nodeApi})\n`);
  execFileSync(process.execPath, [cmakeJs, 'compile', '--out', cmakeBuildDir(target.duckdb), ...args], {
    cwd: root, stdio: 'inherit', env: { ...process.env, DUCKDB_VORTEX_NODE_API: target.nodeApi },
  });
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
}
