#!/usr/bin/env node
// Which DuckDB the addon is built for, and that DuckDB's C++ headers and libduckdb.
//
// The addon uses DuckDB's C++ API, which has no ABI stability: it is compiled against the exact
// release it runs in. scripts/duckdb-lines.json lists the releases this package supports.
//
// Target: the @duckdb/node-api installed next to the package, or DUCKDB_VORTEX_NODE_API=<version>
// (e.g. X.Y.Z-r.N; that node-api is then installed into the git-ignored .cache/ to link against).
//
// Headers: the C++ headers of DuckDB's source at the matching tag, verified before use against
// the sha256 pinned in duckdb-lines.json and extracted into the git-ignored .cache/. Only
// include directories are kept (HEADER_DIRS), and the pin is the sha256 of exactly that tree
// (treeDigest: every .h/.hpp/.ipp/.inc file's sha256 and path), so any archive of the tag
// verifies, whatever its packaging: GitHub's tag archive, a headers-only tarball, a checkout.
// Where from, in order:
//   - DUCKDB_VORTEX_HEADERS: a checkout of DuckDB's source at the tag, a source or headers
//     archive (.tar.gz), or a directory holding duckdb-<version>-headers.tar.gz (offline builds);
//   - DUCKDB_VORTEX_SOURCE_URL: the URL of a source archive (https:// or file://; `{version}` is
//     replaced by the release, X.Y.Z);
//   - the line's default: the `duckdb` npm package for 1.4.x (npm pack, sha512-verified: it
//     ships DuckDB's source), else DuckDB's tag archive (headers.url).
// Nothing is downloaded when a verified extraction is already in .cache/, and scripts/install.mjs
// builds (and so gets headers) only when no prebuilt binary matches.
// DUCKDB_VORTEX_HEADERS_SHA256 pins the tree for a release duckdb-lines.json does not list.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tar from 'tar';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const LINES = JSON.parse(readFileSync(join(root, 'scripts', 'duckdb-lines.json'), 'utf8')).lines;
const log = (m) => process.stderr.write(`[duckdb-headers] ${m}\n`);

/** "X.Y.Z-r.N", "vX.Y.Z" -> "X.Y.Z" */
export function duckdbOf(version) {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) throw new Error(`duckdb-vortex: cannot read a DuckDB version from "${version}"`);
  return `${m[1]}.${m[2]}.${m[3]}`;
}

/** X.Y.Z -> X*10000 + Y*100 + Z, e.g. 10203 for 1.2.3 (for the compatibility header's #if). */
export function versionNumber(duckdb) {
  const [a, b, c] = duckdb.split('.').map(Number);
  return a * 10000 + b * 100 + c;
}

/**
 * The project whose @duckdb/node-api the build targets: DUCKDB_VORTEX_NODE_API_FROM (the install
 * script sets it to the service that runs `npm install`, whose copy may not be the one this folder
 * resolves: a symlinked install, `npm link`), else this package.
 */
export function nodeApiProject() {
  return process.env.DUCKDB_VORTEX_NODE_API_FROM || root;
}

export function installedNodeApi(from = nodeApiProject()) {
  try {
    const req = createRequire(join(from, 'package.json'));
    return JSON.parse(readFileSync(req.resolve('@duckdb/node-api/package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

const supportedText = () => LINES.map((l) => `@duckdb/node-api ${l.nodeApi} (DuckDB ${l.duckdb})`).join(', ');

/** The DuckDB this build is for: { nodeApi, duckdb, line }. */
export function buildTarget(nodeApi = process.env.DUCKDB_VORTEX_NODE_API || installedNodeApi()) {
  if (!nodeApi) {
    throw new Error(`duckdb-vortex: @duckdb/node-api is not installed, so there is no DuckDB to build for. ` +
      `Install one of ${supportedText()}, or set DUCKDB_VORTEX_NODE_API to a @duckdb/node-api version.`);
  }
  // support.cjs lineOf: a listed node-api names its release, else its version begins with DuckDB's.
  const line = createRequire(import.meta.url)('./support.cjs').lineOf(nodeApi);
  return { nodeApi, duckdb: line?.duckdb ?? duckdbOf(nodeApi), line };
}

/** The CPU the build is for: DUCKDB_VORTEX_ARCH (arm64 is cross-compiled on x64, see scripts/prebuild.mjs), else this one. */
export function targetArch() {
  return process.env.DUCKDB_VORTEX_ARCH || process.arch;
}

/**
 * A directory from which `@duckdb/node-api@nodeApi` resolves: the target project when that is
 * the installed version, otherwise a private install in .cache/ (only to link against).
 */
export function ensureNodeApi(nodeApi) {
  if (installedNodeApi() === nodeApi) return nodeApiProject();
  const dir = join(root, '.cache', `node-api-${nodeApi}`);
  const version = () => {
    try {
      return JSON.parse(readFileSync(join(dir, 'node_modules', '@duckdb', 'node-api', 'package.json'), 'utf8')).version;
    } catch {
      return null;
    }
  };
  if (version() === nodeApi) return dir;
  log(`npm install @duckdb/node-api@${nodeApi} into ${dir}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `node-api-${nodeApi}`, private: true }) + '\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', `@duckdb/node-api@${nodeApi}`], {
    cwd: dir, stdio: ['ignore', 2, 'inherit'], shell: process.platform === 'win32',
  });
  if (version() !== nodeApi) throw new Error(`duckdb-vortex: could not install @duckdb/node-api@${nodeApi} into ${dir}`);
  return dir;
}

const LIBDUCKDB = { darwin: 'libduckdb.dylib', win32: 'duckdb.lib' };

/**
 * `name` in `dir`, or the versioned file beside it: some node-bindings releases ship libduckdb.so.<major>.<minor> (its
 * SONAME, which the addon then records too, so that it binds to the library duckdb.node loaded).
 */
function sharedLibrary(dir, name) {
  if (existsSync(join(dir, name))) return join(dir, name);
  let versioned = [];
  try {
    versioned = readdirSync(dir).filter((f) => f.startsWith(`${name}.`)).sort();
  } catch {
    // no such folder: the caller reports the missing library
  }
  return join(dir, versioned[0] ?? name);
}

/**
 * The libduckdb shared library shipped by @duckdb/node-bindings-<platform>-<arch> next to that
 * node-api. For another CPU (cross builds) the platform package, which npm installs only on its
 * own CPU, is unpacked from the registry into .cache/ (npm pack, integrity checked by npm).
 */
export function libduckdbPath(nodeApi, arch = targetArch()) {
  const req = createRequire(join(ensureNodeApi(nodeApi), 'package.json'));
  const api = dirname(req.resolve('@duckdb/node-api/package.json'));
  const bindings = dirname(createRequire(join(api, 'package.json')).resolve('@duckdb/node-bindings/package.json'));
  const platformPkg = `@duckdb/node-bindings-${process.platform}-${arch}`;
  const name = LIBDUCKDB[process.platform] ?? 'libduckdb.so';
  if (arch === process.arch) {
    return sharedLibrary(dirname(createRequire(join(bindings, 'package.json')).resolve(`${platformPkg}/package.json`)), name);
  }
  const version = JSON.parse(readFileSync(join(bindings, 'package.json'), 'utf8')).version;
  const dir = join(root, '.cache', `node-bindings-${process.platform}-${arch}-${version}`);
  let lib = sharedLibrary(join(dir, 'package'), name);
  if (!existsSync(lib)) {
    log(`npm pack ${platformPkg}@${version} into ${dir} (libduckdb for ${arch})`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const out = execFileSync('npm', ['pack', `${platformPkg}@${version}`, '--pack-destination', dir, '--json', '--ignore-scripts'], {
      encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], shell: process.platform === 'win32',
    });
    tar.x({ file: join(dir, JSON.parse(out)[0].filename), cwd: dir, sync: true });
    lib = sharedLibrary(join(dir, 'package'), name);
    if (!existsSync(lib)) throw new Error(`duckdb-vortex: ${platformPkg}@${version} holds no ${name}`);
  }
  return lib;
}

/** The parts of DuckDB's source tree the addon compiles against. */
export const HEADER_DIRS = ['src/include', 'third_party/fastpforlib', 'third_party/fmt', 'third_party/fsst',
  'third_party/hyperloglog', 'third_party/lz4', 'third_party/utf8proc', 'third_party/zstd'];
const HEADER_FILE = /\.(h|hpp|ipp|inc)$/;

function headerFiles(top) {
  const out = [];
  const walk = (rel) => {
    let entries = [];
    try {
      entries = readdirSync(join(top, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(r);
      else if (e.isFile() && HEADER_FILE.test(e.name)) out.push(r);
    }
  };
  HEADER_DIRS.forEach(walk);
  return out.sort();
}

/**
 * sha256 of the header tree under `top` (a folder holding src/include and third_party): over
 * the sorted lines "<sha256 of the file>  <path>" (sha256sum's format) of every header file in
 * HEADER_DIRS. Independent of how the tree was archived.
 */
export function treeDigest(top) {
  const h = createHash('sha256');
  for (const f of headerFiles(top)) h.update(`${createHash('sha256').update(readFileSync(join(top, f))).digest('hex')}  ${f}\n`);
  return h.digest('hex');
}

/** The tree digests accepted for DuckDB `duckdb`: { digest: what it is }. */
function pins(duckdb, line) {
  const env = process.env.DUCKDB_VORTEX_HEADERS_SHA256;
  if (env) return { [env.trim().toLowerCase()]: 'DUCKDB_VORTEX_HEADERS_SHA256' };
  return line?.headers.sha256 ?? {};
}

function verifyTree(duckdb, line, top, what) {
  const accepted = pins(duckdb, line);
  const actual = treeDigest(top);
  if (!Object.keys(accepted).length) {
    throw new Error(`duckdb-vortex: DuckDB ${duckdb} is not a supported line, so no sha256 is pinned for its headers: ` +
      `set DUCKDB_VORTEX_HEADERS_SHA256=${actual} if ${what} is DuckDB's source at tag v${duckdb}, or use a checkout with DUCKDB_VORTEX_HEADERS.`);
  }
  if (!accepted[actual]) {
    throw new Error(`duckdb-vortex: ${what} failed verification: the sha256 of its DuckDB ${duckdb} headers is ${actual}, ` +
      `but scripts/duckdb-lines.json pins ${Object.entries(accepted).map(([d, w]) => `${d} (${w})`).join(' or ')}. ` +
      `It is not DuckDB's source at tag v${duckdb}, or it was altered; the build stops rather than compile against it.`);
  }
  return actual;
}

/** Moves a verified tree's include directories into .cache/duckdb-<v>/ (marker: its digest). */
function install(duckdb, top, digest) {
  const dir = join(root, '.cache', `duckdb-${duckdb}`);
  const next = `${dir}.partial`;
  rmSync(next, { recursive: true, force: true });
  mkdirSync(next, { recursive: true });
  renameSync(join(top, 'src'), join(next, 'src'));
  renameSync(join(top, 'third_party'), join(next, 'third_party'));
  writeFileSync(join(next, 'VERIFIED'), digest + '\n');
  rmSync(dir, { recursive: true, force: true });
  renameSync(next, dir);
  log(`DuckDB ${duckdb} headers verified (sha256 ${digest}) and ready in ${dir}`);
  return dir;
}

/** The cached, verified headers of `duckdb`, or null. */
function cachedTree(duckdb, line) {
  const dir = join(root, '.cache', `duckdb-${duckdb}`);
  try {
    const marker = readFileSync(join(dir, 'VERIFIED'), 'utf8').trim();
    return pins(duckdb, line)[marker] ? dir : null;
  } catch {
    return null;
  }
}

/** The folder inside an extraction that holds src/include/duckdb.hpp (GitHub: duckdb-<v>/, npm: package/src/duckdb/). */
function findTop(dir, depth = 0) {
  if (existsSync(join(dir, 'src', 'include', 'duckdb.hpp'))) return dir;
  if (depth >= 3) return null;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const found = findTop(join(dir, e.name), depth + 1);
    if (found) return found;
  }
  return null;
}

/** Calls `use` with the top folder of a source archive's header directories, extracted into a scratch folder removed after. */
async function withExtractedTop(archive, what, use) {
  mkdirSync(join(root, '.cache'), { recursive: true });
  const work = mkdtempSync(join(root, '.cache', 'tmp-headers-'));
  try {
    await extractHeaders(archive, work, what);
    const top = findTop(work);
    if (!top) throw new Error(`duckdb-vortex: ${what} holds no <top>/src/include/duckdb.hpp: it is not a DuckDB source archive`);
    return use(top);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Extracts the header directories of a source archive, verifies them and moves them into the cache. */
function fromArchive(duckdb, line, archive, what) {
  return withExtractedTop(archive, what, (top) => install(duckdb, top, verifyTree(duckdb, line, top, what)));
}

/**
 * The tree digest of DuckDB's source given as a checkout (a folder holding src/include, or its
 * parent) or a .tar.gz archive (a tag archive or a headers-only tarball): what duckdb-lines.json pins.
 */
export async function sourceDigest(source) {
  if (!statSync(source).isDirectory()) return withExtractedTop(source, source, treeDigest);
  const top = findTop(source);
  if (!top) throw new Error(`duckdb-vortex: ${source} holds no src/include/duckdb.hpp: it is not DuckDB's source`);
  return treeDigest(top);
}

/** Extracts only the header files of HEADER_DIRS from a source archive into `work`. */
async function extractHeaders(archive, work, what) {
  const wanted = new RegExp(`(^|/)(${HEADER_DIRS.map((d) => d.replace('/', '\\/')).join('|')})/`);
  try {
    await tar.x({
      file: archive, cwd: work, strict: true,
      filter: (path, entry) => entry.type !== 'Directory' && wanted.test(path) && HEADER_FILE.test(path),
    });
  } catch (e) {
    throw new Error(`duckdb-vortex: ${what} is not a readable .tar.gz source archive (${e.message})`);
  }
}

/** A file:// or http(s):// archive as a local file (downloads go to `work`). */
async function fetchArchive(url, work, duckdb) {
  if (url.startsWith('file:')) {
    const file = fileURLToPath(url);
    if (!existsSync(file)) throw new Error(`duckdb-vortex: ${url} does not exist`);
    return file;
  }
  if (!/^https?:\/\//.test(url)) throw new Error(`duckdb-vortex: DUCKDB_VORTEX_SOURCE_URL must be an https://, http:// or file:// URL, got "${url}"`);
  log(`downloading DuckDB ${duckdb}'s source archive ${url} (only its C++ headers are kept)`);
  let response;
  try {
    response = await fetch(url, { redirect: 'follow' });
  } catch (e) {
    throw new Error(`duckdb-vortex: could not download ${url} (${e.cause?.message ?? e.message})`);
  }
  if (!response.ok || !response.body) throw new Error(`duckdb-vortex: could not download ${url} (HTTP ${response.status})`);
  const file = join(work, 'source.tar.gz');
  await pipeline(Readable.fromWeb(response.body), createWriteStream(file));
  return file;
}

async function fromUrl(duckdb, line, url) {
  mkdirSync(join(root, '.cache'), { recursive: true });
  const work = mkdtempSync(join(root, '.cache', 'tmp-download-'));
  try {
    return await fromArchive(duckdb, line, await fetchArchive(url, work, duckdb), url);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function fromNpm(duckdb, line) {
  const { package: spec, integrity } = line.headers.npm;
  mkdirSync(join(root, '.cache'), { recursive: true });
  const work = mkdtempSync(join(root, '.cache', 'tmp-npm-'));
  try {
    log(`npm pack ${spec} (DuckDB ${duckdb}'s source; only its C++ headers are kept)`);
    const out = execFileSync('npm', ['pack', spec, '--pack-destination', work, '--json', '--ignore-scripts'], {
      encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], shell: process.platform === 'win32',
    });
    const tarball = join(work, JSON.parse(out)[0].filename);
    const actual = 'sha512-' + createHash('sha512').update(readFileSync(tarball)).digest('base64');
    if (actual !== integrity) throw new Error(`duckdb-vortex: ${spec} tarball failed verification: expected ${integrity}, got ${actual}`);
    return await fromArchive(duckdb, line, tarball, `the npm package ${spec}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function missing(duckdb, line, looked) {
  return new Error(
    `duckdb-vortex: DuckDB ${duckdb}'s C++ headers are needed to build the addon` +
      `${looked.length ? ` (looked in ${looked.join(', ')})` : ''}. Get DuckDB's source at the matching tag ` +
      `(git clone --depth 1 --branch v${duckdb} https://github.com/duckdb/duckdb) and set DUCKDB_VORTEX_HEADERS to that ` +
      `checkout, or DUCKDB_VORTEX_SOURCE_URL to a source archive of the tag (https:// or file://)` +
      `${line ? '' : ', with DUCKDB_VORTEX_HEADERS_SHA256 set to its headers\' sha256'}.`,
  );
}

/** DUCKDB_VORTEX_HEADERS: a checkout (verified in place), an archive, or a folder holding duckdb-<v>-headers.tar.gz. */
async function fromEnvHeaders(duckdb, line, source) {
  if (!existsSync(source)) return null;
  if (statSync(source).isFile()) return fromArchive(duckdb, line, source, source);
  for (const dir of [source, join(source, `duckdb-${duckdb}`)]) {
    if (existsSync(join(dir, 'src', 'include', 'duckdb.hpp'))) {
      // A checkout: used in place, verified when a sha256 is pinned for the release.
      if (Object.keys(pins(duckdb, line)).length) verifyTree(duckdb, line, dir, `the checkout ${dir}`);
      else log(`DuckDB ${duckdb} is not a supported line: using the checkout ${dir} unverified`);
      return dir;
    }
  }
  const named = join(source, `duckdb-${duckdb}-headers.tar.gz`);
  return existsSync(named) ? fromArchive(duckdb, line, named, named) : null;
}

/**
 * In a development checkout (not an installed package), a folder of header tarballs beside it,
 * ../shared/duckdb-headers/duckdb-<version>-headers.tar.gz, stands in for the download: machines
 * that reach the npm registry but not GitHub keep DuckDB's headers there. Verified like any source.
 */
function offlineMirror(duckdb) {
  if (root.split(/[\\/]/).includes('node_modules')) return null;
  const dir = resolve(root, '..', 'shared', 'duckdb-headers');
  return existsSync(join(dir, `duckdb-${duckdb}-headers.tar.gz`)) ? dir : null;
}

/**
 * Include directories for DuckDB `duckdb` (default: the build target), fetching and verifying
 * the headers first.
 */
export async function ensureHeaders(duckdb = buildTarget().duckdb) {
  const line = LINES.find((l) => l.duckdb === duckdb);
  const looked = [];
  let top = null;
  const env = process.env.DUCKDB_VORTEX_HEADERS;
  if (env) {
    looked.push(`DUCKDB_VORTEX_HEADERS=${resolve(env)}`);
    top = await fromEnvHeaders(duckdb, line, resolve(env));
  }
  if (!top) top = cachedTree(duckdb, line);
  const mirror = top ? null : offlineMirror(duckdb);
  if (mirror) top = await fromEnvHeaders(duckdb, line, mirror);
  const url = process.env.DUCKDB_VORTEX_SOURCE_URL;
  if (!top && url) top = await fromUrl(duckdb, line, url.replaceAll('{version}', duckdb));
  else if (!top && line?.headers.npm) top = await fromNpm(duckdb, line);
  else if (!top && line?.headers.url) {
    try {
      top = await fromUrl(duckdb, line, line.headers.url);
    } catch (e) {
      if (/failed verification/.test(e.message)) throw e;
      throw new Error(`${e.message}. ${missing(duckdb, line, looked).message.replace(/^duckdb-vortex: /, '')}`);
    }
  }
  if (!top) throw missing(duckdb, line, looked);
  return includeDirs(join(top, 'src', 'include'), join(top, 'third_party'));
}

function includeDirs(include, thirdParty) {
  return [include, thirdParty, join(thirdParty, 'zstd', 'include'), join(thirdParty, 'fmt', 'include'),
    join(thirdParty, 'utf8proc', 'include')];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    if (process.argv.includes('--digest')) {
      // --digest <folder>: the tree digest of an extracted DuckDB source (to pin a release).
      process.stdout.write(treeDigest(resolve(process.argv[process.argv.indexOf('--digest') + 1])) + '\n');
    } else {
      const dirs = await ensureHeaders();
      if (process.argv.includes('--print')) process.stdout.write(dirs.join('\n') + '\n');
    }
  } catch (e) {
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
}
