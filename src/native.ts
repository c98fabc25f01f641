import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { version as loadedDuckDBVersion } from '@duckdb/node-api';
import type { CompiledRule } from './rules';
import { normalizeVersion } from './version';

export interface NativeAddon {
  /** `rulesGiven`: the caller chose `rules`, so a database registered with other rules is an error. */
  attach(connection: unknown, rules: CompiledRule[], rulesGiven: boolean): boolean;
  readonly duckdbVersion: string;
}

/** A DuckDB release this package is built, prebuilt and tested for (scripts/duckdb-lines.json). */
export interface DuckDBLine {
  duckdb: string;
  nodeApi: string;
}

/** Package root: the directory that holds binding.gyp, build/ and prebuilds/. */
export const packageRoot = join(__dirname, '..');

export function supportedDuckDB(root = packageRoot): DuckDBLine[] {
  const json = JSON.parse(readFileSync(join(root, 'scripts', 'duckdb-lines.json'), 'utf8')) as { lines: DuckDBLine[] };
  return json.lines.map(({ duckdb, nodeApi }) => ({ duckdb, nodeApi }));
}

/**
 * Where the addon built for DuckDB `duckdb` (e.g. "1.5.5") may be, in order: a local build
 * (npm run build:native, or the node-gyp fallback of npm install), then the prebuilt binary.
 */
export function addonCandidates(duckdb: string, root = packageRoot): string[] {
  const dir = `duckdb-${duckdb}`;
  return [
    join(root, 'build', dir, 'Release', 'duckdb_vortex.node'),
    join(root, 'prebuilds', `${process.platform}-${process.arch}`, dir, 'duckdb_vortex.node'),
  ];
}

/** The DuckDB versions this installation has a binary for. */
export function availableBinaries(root = packageRoot): string[] {
  const found = new Set<string>();
  for (const parent of [join(root, 'build'), join(root, 'prebuilds', `${process.platform}-${process.arch}`)]) {
    let entries: string[] = [];
    try {
      entries = readdirSync(parent);
    } catch {
      continue;
    }
    for (const e of entries) {
      const m = /^duckdb-(\d+\.\d+\.\d+)$/.exec(e);
      if (m && addonCandidates(m[1], root).some((p) => existsSync(p))) found.add(m[1]);
    }
  }
  return [...found].sort();
}

/**
 * The binary built for the DuckDB that @duckdb/node-api reports (`version()`, e.g. "v1.4.4").
 * DuckDB's C++ API has no ABI stability, so only an exact match is loaded; otherwise the error
 * names the version found, the versions supported, and how to build for it.
 */
export function findAddon(loadedVersion: string, root = packageRoot): string {
  const v = normalizeVersion(loadedVersion);
  const path = addonCandidates(v, root).find((p) => existsSync(p));
  if (path) return path;
  const supported = supportedDuckDB(root);
  const lines = supported.map((l) => `@duckdb/node-api ${l.nodeApi} (DuckDB v${l.duckdb})`).join(' and ');
  const available = availableBinaries(root);
  throw new Error(
    `duckdb-vortex has no native addon for DuckDB v${v}, the DuckDB of the @duckdb/node-api in use. ` +
      `Supported: ${lines}` +
      `${available.length ? `; binaries present for ${available.map((a) => `v${a}`).join(', ')}` : '; no binary is present'}. ` +
      `Install a supported @duckdb/node-api, or build the addon for v${v} against DuckDB's headers of that exact release: ` +
      `DUCKDB_VORTEX_HEADERS=<DuckDB's source at tag v${v}> npm rebuild duckdb-vortex ` +
      `(in a checkout: npm run build:native). See "DuckDB versions" in the README.`,
  );
}

let addon: NativeAddon | undefined;

/**
 * Loads the addon after @duckdb/node-api (imported above), so that the libduckdb it links is the
 * one @duckdb/node-bindings already loaded (one DuckDB per process). VORTEX_ADDON_PATH selects
 * a specific build (e.g. the sanitizer build).
 */
export function loadAddon(): NativeAddon {
  if (addon) return addon;
  const path = process.env.VORTEX_ADDON_PATH || findAddon(loadedDuckDBVersion());
  try {
    addon = require(path) as NativeAddon;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(
      `duckdb-vortex: the native addon could not be loaded (${why}). ` +
        `Build it with "npm run build:native" (cmake-js) or "npm run build:gyp" (node-gyp) in ${packageRoot}, ` +
        `or with "npm rebuild duckdb-vortex" in the project that installed it.`,
    );
  }
  return addon;
}
