#!/usr/bin/env node
// `npm install` step. For the @duckdb/node-api of the service that installs duckdb-vortex:
//   - none installed: nothing to build now (the loader picks a binary when registerVortex runs);
//   - a DuckDB with no supported line (scripts/duckdb-lines.json): the one clear error
//     (scripts/support.cjs), unless DUCKDB_VORTEX_HEADERS asks for a build against a checkout;
//   - a binary present that loads (prebuilds/<platform>-<arch>/duckdb-<v>/ or build/duckdb-<v>/): done;
//   - otherwise compile it, saying so first: with cmake-js in a development checkout, with
//     node-gyp (which ships with npm) everywhere else. DuckDB's headers are obtained and verified
//     by scripts/duckdb-headers.mjs (downloaded only here, when no prebuilt binary matches).
// npm hides an install script's output unless it fails (or runs with --foreground-scripts), so the
// notice before a compile is also written to the terminal, where there is one.
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, realpathSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { buildTarget, installedNodeApi, root } from './duckdb-headers.mjs';

const require = createRequire(join(root, 'package.json'));
const support = require(join(root, 'scripts', 'support.cjs'));
const log = (m) => process.stderr.write(`[duckdb-vortex] ${m}\n`);

function announce(m) {
  log(m);
  if (process.stderr.isTTY) return;
  try {
    const tty = openSync('/dev/tty', 'w');
    writeSync(tty, `[duckdb-vortex] ${m}\n`);
    closeSync(tty);
  } catch {
    // no terminal (CI, a pipe): stderr is all there is
  }
}

/**
 * The project whose @duckdb/node-api counts. Installed inside a node_modules folder, the package
 * resolves the service's copy itself. A folder outside node_modules (npm install <folder>,
 * npm link, a checkout) would resolve its own dev dependency: the service that runs the install
 * (npm's INIT_CWD) is asked first.
 */
function project() {
  const real = realpathSync(root);
  const init = process.env.INIT_CWD;
  if (!real.split(sep).includes('node_modules') && init && installedNodeApi(init)) return init;
  return root;
}

function binaryLoads(from, duckdb) {
  const candidates = [
    join(root, 'build', `duckdb-${duckdb}`, 'Release', 'duckdb_vortex.node'),
    join(root, 'prebuilds', `${process.platform}-${process.arch}`, `duckdb-${duckdb}`, 'duckdb_vortex.node'),
  ].filter((p) => existsSync(p));
  if (!candidates.length) return false;
  try {
    // The project's own node-api first: the addon links the libduckdb its bindings load.
    createRequire(join(from, 'package.json'))('@duckdb/node-api');
    require(candidates[0]);
    return true;
  } catch (e) {
    log(`${candidates[0]} does not load here (${e.message.split('\n')[0]})`);
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
  if (process.env._PACOTE_NO_PREPARE_) {
    // npm is preparing a git dependency: it installs the clone (to run `prepare`), packs it and
    // installs the result, whose own install builds for the service's node-api. A build here
    // would be thrown away (build/ is not packed).
    log('preparing a git dependency: the native addon is built when the packed result is installed');
    process.exit(0);
  }
  const from = project();
  process.env.DUCKDB_VORTEX_NODE_API_FROM = from;
  const nodeApi = process.env.DUCKDB_VORTEX_NODE_API || installedNodeApi(from);
  if (!nodeApi) {
    log(`no @duckdb/node-api is installed next to duckdb-vortex, so there is nothing to build now; ` +
      `registerVortex picks the binary for the one your service installs. Supported: ${support.supportedText()}. ` +
      `Install one, e.g. npm install --save-exact @duckdb/node-api@${support.lines[support.lines.length - 1].nodeApi}`);
    process.exit(0);
  }
  const target = buildTarget(nodeApi);
  if (!target.line && !process.env.DUCKDB_VORTEX_HEADERS) {
    log(support.unsupportedMessage({ duckdb: target.duckdb, nodeApi }));
    process.exit(1);
  }
  if (process.env.VORTEX_FORCE_BUILD !== '1' && binaryLoads(from, target.duckdb)) {
    log(`native addon for DuckDB ${target.duckdb} (@duckdb/node-api ${nodeApi}) present`);
    process.exit(0);
  }
  const script = existsSync(join(root, 'CMakeLists.txt')) && resolveOrNull('cmake-js/bin/cmake-js') ? 'build-native.mjs' : 'build-gyp.mjs';
  announce(`no prebuilt binary for DuckDB ${target.duckdb} on ${process.platform}-${process.arch}: compiling the native addon ` +
    `from source now. This takes a few minutes (about 2 on 2 cores) and needs a C++17 compiler, make and ` +
    `${script === 'build-gyp.mjs' ? 'Python (node-gyp)' : 'cmake'}; npm shows no output meanwhile unless run with --foreground-scripts.`);
  const started = Date.now();
  execFileSync(process.execPath, [join(root, 'scripts', script)], {
    cwd: root, stdio: 'inherit', env: { ...process.env, DUCKDB_VORTEX_NODE_API: nodeApi },
  });
  announce(`native addon for DuckDB ${target.duckdb} compiled in ${Math.round((Date.now() - started) / 1000)} s`);
} catch (e) {
  log(e.message.split('\n')[0]);
  process.exit(1);
}
