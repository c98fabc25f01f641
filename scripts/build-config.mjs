#!/usr/bin/env node
// One source of truth for both build descriptions (CMakeLists.txt and binding.gyp), for the
// DuckDB the build targets (scripts/duckdb-headers.mjs: the installed @duckdb/node-api, or
// DUCKDB_VORTEX_NODE_API):
//   includes       -> include directories (DuckDB's headers are fetched and verified first)
//   isystem        -> the same as -isystem flags, so DuckDB's headers do not warn in our build
//   libduckdb      -> the libduckdb shared library that @duckdb/node-bindings loads
//   version        -> the DuckDB version, e.g. v1.5.5
//   version-number -> the same as a number, e.g. 10505 (native/duckdb/duckdb_compat.hpp)
//   sources        -> the addon's C++ sources
//   core-sources   -> those of native/format and native/compute (a static library that knows nothing of DuckDB)
//   core-includes  -> its include directories: the libraries DuckDB bundles (zstd, lz4), not DuckDB's own headers
//   core-isystem   -> the same as -isystem flags
//   glue-sources   -> those of native/duckdb and native/addon
//   pch-include    -> node-gyp's flag that puts native/duckdb/duckdb_pch.hpp in front of every glue file,
//                     through build/pch/, where scripts/build-gyp.mjs precompiles it
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTarget, ensureHeaders, libduckdbPath, root, versionNumber } from './duckdb-headers.mjs';

/** The .cpp files of one layer, its sub-folders (native/duckdb's scan, pushdown, copy, ...) included. */
function layerSources(dir) {
  const out = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.isDirectory()) out.push(...layerSources(join(dir, e.name)));
    else if (e.name.endsWith('.cpp')) out.push(join(dir, e.name));
  }
  return out;
}

const CORE = ['format', 'compute'];

/** DuckDB's include directories but its own (src/include): what native/format and native/compute may see. */
async function coreIncludes(target) {
  return (await ensureHeaders(target.duckdb)).filter((d) => !/[/\\]src[/\\]include$/.test(d));
}
const GLUE = ['duckdb', 'addon'];

export function sources(layers = [...CORE, ...GLUE]) {
  return layers.flatMap((layer) => layerSources(join('native', layer)));
}

/** The header node-gyp's glue files are compiled after; its precompiled form (.gch) goes beside it. */
export function pchWrapper() {
  const dir = join(root, 'build', 'pch');
  mkdirSync(dir, { recursive: true });
  const wrapper = join(dir, 'duckdb_pch.hpp');
  writeFileSync(wrapper, `#include "${join(root, 'native', 'duckdb', 'duckdb_pch.hpp').replace(/\\/g, '/')}"\n`);
  return wrapper;
}

const what = process.argv[2];
if (what) {
  try {
    const target = buildTarget();
    switch (what) {
      case 'includes': console.log((await ensureHeaders(target.duckdb)).join('\n')); break;
      case 'isystem': console.log((await ensureHeaders(target.duckdb)).map((d) => `-isystem ${d}`).join(' ')); break;
      case 'libduckdb': console.log(libduckdbPath(target.nodeApi)); break;
      case 'version': console.log(`v${target.duckdb}`); break;
      case 'version-number': console.log(versionNumber(target.duckdb)); break;
      case 'sources': console.log(sources().join('\n')); break;
      case 'core-includes': console.log((await coreIncludes(target)).join('\n')); break;
      case 'core-isystem': console.log((await coreIncludes(target)).map((d) => `-isystem ${d}`).join(' ')); break;
      case 'core-sources': console.log(sources(CORE).join('\n')); break;
      case 'glue-sources': console.log(sources(GLUE).join('\n')); break;
      case 'pch-include': console.log(`-include ${pchWrapper()}`); break;
      default: console.error(`unknown query: ${what}`); process.exit(2);
    }
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
