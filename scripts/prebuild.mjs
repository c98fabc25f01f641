#!/usr/bin/env node
// `npm run prebuild`: one prebuilt binary per supported DuckDB release (scripts/duckdb-lines.json),
// built with node-gyp into prebuilds/<platform>-<arch>/duckdb-<version>/duckdb_vortex.node, which
// `npm pack` ships. Each release links the libduckdb of its own @duckdb/node-api (installed into
// .cache/ when it is not the one in node_modules); a release whose node-api published no bindings
// for the platform gets no binary. What was built goes to prebuilds/manifest.json; then each binary
// is smoke-tested next to its node-api from a packed tarball (scripts/smoke-lines.mjs; arm64:
// scripts/smoke-arm64.mjs under qemu).
//   --only X.Y.Z,...     these releases
//   --arch arm64         cross-compile (`npm run prebuild:arm64`): Debian's aarch64 toolchain
//                        (apt-get install g++-aarch64-linux-gnu), linked against the libduckdb.so of
//                        @duckdb/node-bindings-linux-arm64 from the npm registry
//   --no-smoke           build only
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LINES, root } from './duckdb-headers.mjs';
import { buildWithGyp } from './build-gyp.mjs';

const support = createRequire(import.meta.url)('./support.cjs');
const { values } = parseArgs({ options: { only: { type: 'string' }, arch: { type: 'string', default: process.arch }, 'no-smoke': { type: 'boolean' } } });
const platform = `${process.platform}-${values.arch}`;
const manifestFile = join(root, 'prebuilds', 'manifest.json');
try {
  const only = values.only ? values.only.split(',') : null;
  const lines = LINES.filter((l) => !only || only.includes(l.duckdb));
  if (!lines.length || (only && lines.length !== only.length)) {
    throw new Error(`prebuild: --only ${values.only} names no supported release (${LINES.map((l) => l.duckdb).join(', ')})`);
  }
  const built = [];
  for (const line of lines) {
    const started = Date.now();
    const nodeApi = support.nodeApiOf(line, platform);
    if (!nodeApi) {
      process.stderr.write(`[duckdb-vortex] prebuild: no @duckdb/node-bindings-${platform} of DuckDB ${line.duckdb} was published, so no binary\n`);
      continue;
    }
    const dest = await buildWithGyp({ nodeApi, prebuild: true, arch: values.arch });
    const seconds = Math.round((Date.now() - started) / 1000);
    process.stderr.write(`[duckdb-vortex] prebuild for DuckDB ${line.duckdb} on ${platform}: ${seconds} s\n`);
    mkdirSync(join(root, 'prebuilds'), { recursive: true });
    const manifest = existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')) : {};
    (manifest[platform] ??= {})[line.duckdb] = {
      nodeApi, bytes: statSync(dest).size, sha256: createHash('sha256').update(readFileSync(dest)).digest('hex'),
      builtAt: new Date().toISOString(), buildSeconds: seconds,
    };
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
    built.push(line.duckdb);
  }
  if (!values['no-smoke'] && built.length) {
    const smoke = values.arch === process.arch ? 'smoke-lines.mjs' : 'smoke-arm64.mjs';
    const r = spawnSync(process.execPath, [join(root, 'scripts', smoke), '--only', built.join(',')], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`prebuild: the smoke test failed (${smoke})`);
  }
} catch (e) {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
}
