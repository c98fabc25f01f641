#!/usr/bin/env node
// node-gyp build (binding.gyp) for the DuckDB of the installed @duckdb/node-api or of
// DUCKDB_VORTEX_NODE_API (see scripts/duckdb-headers.mjs): what `npm install` uses where no
// prebuilt binary fits and cmake-js is absent, and what `npm run prebuild` uses per DuckDB line.
// node-gyp always writes build/Release/duckdb_vortex.node (and `rebuild` empties build/ first);
// the result is then copied to build/duckdb-<version>/Release/ (or, with --prebuild, stripped into
// prebuilds/<platform>-<arch>/duckdb-<version>/), the places src/native.ts looks.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTarget, ensureHeaders, libduckdbPath, root, targetArch } from './duckdb-headers.mjs';

function nodeGyp() {
  if (process.env.npm_config_node_gyp && existsSync(process.env.npm_config_node_gyp)) return process.env.npm_config_node_gyp;
  const req = createRequire(join(root, 'package.json'));
  for (const id of ['node-gyp/bin/node-gyp.js', join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js')]) {
    try {
      return req.resolve(id);
    } catch {
      // next
    }
  }
  throw new Error('duckdb-vortex: node-gyp was not found to build the native addon (it ships with npm)');
}

/** Compiler settings for a cross build to `arch` (Debian's cross toolchains: g++-aarch64-linux-gnu). */
export function crossEnv(arch) {
  if (arch === process.arch) return {};
  const triplets = { arm64: 'aarch64-linux-gnu', x64: 'x86_64-linux-gnu' };
  const prefix = process.env.DUCKDB_VORTEX_CROSS_PREFIX ?? (triplets[arch] ? `${triplets[arch]}-` : null);
  if (process.platform !== 'linux' || prefix === null) throw new Error(`duckdb-vortex: no cross toolchain known for ${process.platform}-${arch} (set DUCKDB_VORTEX_CROSS_PREFIX)`);
  return { CC: `${prefix}gcc`, CXX: `${prefix}g++`, LINK: `${prefix}g++`, AR: `${prefix}ar`, STRIP: `${prefix}strip` };
}

/** Moves build/duckdb-* out of build/ until restore(). */
function keepBuilds() {
  const build = join(root, 'build');
  const aside = join(root, '.cache', `build-kept-${process.pid}`);
  const moved = existsSync(build) ? readdirSync(build).filter((d) => d.startsWith('duckdb-')) : [];
  if (moved.length) mkdirSync(aside, { recursive: true });
  for (const d of moved) renameSync(join(build, d), join(aside, d));
  return {
    restore() {
      if (!moved.length) return;
      mkdirSync(build, { recursive: true });
      for (const d of moved) {
        rmSync(join(build, d), { recursive: true, force: true });
        renameSync(join(aside, d), join(build, d));
      }
      rmSync(aside, { recursive: true, force: true });
    },
  };
}

export async function buildWithGyp({ nodeApi, prebuild = false, arch = targetArch() } = {}) {
  const target = buildTarget(nodeApi);
  const cross = crossEnv(arch);
  const env = { ...process.env, DUCKDB_VORTEX_NODE_API: target.nodeApi, DUCKDB_VORTEX_ARCH: arch, ...cross };
  process.env.DUCKDB_VORTEX_ARCH = arch;
  await ensureHeaders(target.duckdb);
  libduckdbPath(target.nodeApi, arch);
  process.stderr.write(`[duckdb-vortex] node-gyp: building the native addon for DuckDB ${target.duckdb} (@duckdb/node-api ${target.nodeApi}) on ${process.platform}-${arch}\n`);
  const jobs = process.env.JOBS || process.env.VORTEX_BUILD_JOBS || '2';
  const args = ['rebuild', '--release', `--jobs=${jobs}`, `--arch=${arch}`];
  // Node's own headers, when this Node installation carries them, spare node-gyp a download.
  const nodedir = join(dirname(process.execPath), '..');
  if (!process.env.npm_config_nodedir && existsSync(join(nodedir, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${nodedir}`);
  // `node-gyp rebuild` removes build/ first: the cmake-js builds of other releases kept there
  // (build/duckdb-<version>/) are moved aside meanwhile.
  const kept = keepBuilds();
  try {
    execFileSync(process.execPath, [nodeGyp(), ...args], { cwd: root, stdio: 'inherit', env });
  } finally {
    kept.restore();
  }
  const built = join(root, 'build', 'Release', 'duckdb_vortex.node');
  const dest = prebuild
    ? join(root, 'prebuilds', `${process.platform}-${arch}`, `duckdb-${target.duckdb}`, 'duckdb_vortex.node')
    : join(root, 'build', `duckdb-${target.duckdb}`, 'Release', 'duckdb_vortex.node');
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(built, dest);
  if (prebuild && process.platform === 'linux') execFileSync(cross.STRIP ?? 'strip', ['--strip-all', dest], { stdio: 'inherit' });
  if (prebuild && process.platform === 'darwin') execFileSync('strip', ['-Sx', dest], { stdio: 'inherit' });
  process.stderr.write(`[duckdb-vortex] built ${dest}\n`);
  return dest;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await buildWithGyp({ prebuild: process.argv.includes('--prebuild') });
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
}
