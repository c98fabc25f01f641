#!/usr/bin/env node
// `npm run prebuild`: one prebuilt binary per supported DuckDB release (scripts/duckdb-lines.json),
// built with node-gyp into prebuilds/<platform>-<arch>/duckdb-<version>/duckdb_vortex.node, which
// `npm pack` ships. Each line links the libduckdb of its own @duckdb/node-api (installed into
// .cache/ when it is not the one in node_modules).
//   --only 1.5.5   one line
//   --arch arm64   cross-compile (`npm run prebuild:arm64`): Debian's aarch64 toolchain
//                  (apt-get install g++-aarch64-linux-gnu), linked against the libduckdb.so of
//                  @duckdb/node-bindings-linux-arm64 from the npm registry; scripts/smoke-arm64.mjs
//                  then runs the packed package under qemu-user.
import { parseArgs } from 'node:util';
import { LINES } from './duckdb-headers.mjs';
import { buildWithGyp } from './build-gyp.mjs';

const { values } = parseArgs({ options: { only: { type: 'string' }, arch: { type: 'string', default: process.arch } } });
try {
  const lines = LINES.filter((l) => !values.only || l.duckdb === values.only);
  if (!lines.length) throw new Error(`prebuild: --only ${values.only} is not a supported line (${LINES.map((l) => l.duckdb).join(', ')})`);
  for (const line of lines) {
    const started = Date.now();
    // Some node-api revisions published no bindings for some platforms (duckdb-lines.json platforms).
    const nodeApi = line.platforms?.[`${process.platform}-${values.arch}`]?.nodeApi ?? line.nodeApi;
    await buildWithGyp({ nodeApi, prebuild: true, arch: values.arch });
    process.stderr.write(`[duckdb-vortex] prebuild for DuckDB ${line.duckdb} on ${process.platform}-${values.arch}: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  }
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
}
