#!/usr/bin/env node
// Obtains DuckDB's C++ headers for the exact version the addon links against.
// The old `duckdb` npm package ships DuckDB's full source; we take only its include
// directories. `npm pack` (never `npm install`: its install script downloads and compiles)
// fetches the tarball from the npm registry; we verify it against a pinned sha512 before
// extracting anything, and keep the result in a git-ignored cache reused by later builds.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DUCKDB_VERSION = '1.4.4';
export const DUCKDB_INTEGRITY =
  'sha512-hEJJ5hyVF0VLj3dmOLpsWrQR0b3d4Ykqtygm6iUXjHJDDnSqg/USKxcb5qvNrOhFYPgktayU6dXCtgPqcmmpog==';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const cacheDir = join(root, '.cache', `duckdb-${DUCKDB_VERSION}`);
const marker = join(cacheDir, 'VERIFIED');

// Header-only subtrees: DuckDB's own includes and the bundled libraries whose
// symbols libduckdb.so exports (zstd, lz4, fsst, bit-packing) or whose headers DuckDB's
// headers pull in.
const SUBTREES = ['package/src/duckdb/src/include', 'package/src/duckdb/third_party'];
const HEADER_GLOBS = ['*.h', '*.hpp'];

function integrityOf(file) {
  return 'sha512-' + createHash('sha512').update(readFileSync(file)).digest('base64');
}

export function ensureHeaders({ quiet = false } = {}) {
  if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === DUCKDB_INTEGRITY) return cacheDir;
  const log = (m) => quiet || process.stderr.write(`[duckdb-headers] ${m}\n`);
  const work = mkdtempSync(join(tmpdir(), 'duckdb-headers-'));
  try {
    log(`npm pack duckdb@${DUCKDB_VERSION}`);
    const out = execFileSync('npm', ['pack', `duckdb@${DUCKDB_VERSION}`, '--pack-destination', work, '--json', '--ignore-scripts'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      shell: process.platform === 'win32',
    });
    const tarball = join(work, JSON.parse(out)[0].filename);
    const actual = integrityOf(tarball);
    if (actual !== DUCKDB_INTEGRITY) {
      throw new Error(`duckdb@${DUCKDB_VERSION} tarball failed verification: expected ${DUCKDB_INTEGRITY}, got ${actual}`);
    }
    log('integrity verified; extracting include directories');
    const staging = join(work, 'extract');
    mkdirSync(staging);
    execFileSync('tar', ['-xzf', tarball, '-C', staging, '--wildcards', '--exclude=*/icu/*',
      ...SUBTREES.flatMap((s) => HEADER_GLOBS.map((g) => `${s}/${g}`))], { stdio: 'inherit' });
    const next = `${cacheDir}.partial`;
    rmSync(next, { recursive: true, force: true });
    mkdirSync(next, { recursive: true });
    renameSync(join(staging, 'package/src/duckdb/src/include'), join(next, 'include'));
    renameSync(join(staging, 'package/src/duckdb/third_party'), join(next, 'third_party'));
    writeFileSync(join(next, 'VERIFIED'), DUCKDB_INTEGRITY + '\n');
    rmSync(cacheDir, { recursive: true, force: true });
    renameSync(next, cacheDir);
    log(`headers ready in ${cacheDir}`);
    return cacheDir;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Include directories for the compilers, one per line (used by binding.gyp and CMakeLists.txt). */
export function includeDirs(dir = cacheDir) {
  return [join(dir, 'include'), join(dir, 'third_party'), join(dir, 'third_party', 'zstd', 'include'),
    join(dir, 'third_party', 'fmt', 'include'), join(dir, 'third_party', 'utf8proc', 'include')];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = ensureHeaders({ quiet: process.argv.includes('--print') });
  if (process.argv.includes('--print')) process.stdout.write(includeDirs(dir).join('\n') + '\n');
}
