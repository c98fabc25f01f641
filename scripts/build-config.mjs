#!/usr/bin/env node
// One source of truth for both build descriptions (CMakeLists.txt and binding.gyp):
//   includes  -> include directories (DuckDB's headers are fetched and verified first)
//   isystem   -> the same as -isystem flags, so DuckDB's headers do not warn in our build
//   libduckdb -> the libduckdb shared library that @duckdb/node-bindings loads
//   version   -> the DuckDB version the headers belong to
//   sources   -> the addon's C++ sources
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DUCKDB_VERSION, ensureHeaders, includeDirs } from './duckdb-headers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

export function libduckdbPath() {
  const bindings = dirname(require.resolve('@duckdb/node-bindings/package.json'));
  const platformPkg = `@duckdb/node-bindings-${process.platform}-${process.arch}`;
  const fromBindings = createRequire(join(bindings, 'package.json'));
  const dir = dirname(fromBindings.resolve(`${platformPkg}/package.json`));
  const name = process.platform === 'darwin' ? 'libduckdb.dylib' : process.platform === 'win32' ? 'duckdb.lib' : 'libduckdb.so';
  return join(dir, name);
}

export function sources() {
  const out = [];
  for (const layer of ['format', 'compute', 'duckdb', 'addon']) {
    for (const f of readdirSync(join(root, 'native', layer)).sort()) {
      if (f.endsWith('.cpp')) out.push(join('native', layer, f));
    }
  }
  return out;
}

const what = process.argv[2];
if (what) {
  const quiet = { quiet: true };
  switch (what) {
    case 'includes': console.log(includeDirs(ensureHeaders(quiet)).join('\n')); break;
    case 'isystem': console.log(includeDirs(ensureHeaders(quiet)).map((d) => `-isystem ${d}`).join(' ')); break;
    case 'libduckdb': console.log(libduckdbPath()); break;
    case 'version': console.log(`v${DUCKDB_VERSION}`); break;
    case 'sources': console.log(sources().map((s) => relative(root, join(root, s))).join('\n')); break;
    default: console.error(`unknown query: ${what}`); process.exit(2);
  }
}
