import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CompiledRule } from './rules';
import { checkDuckDBVersion, normalizeVersion } from './version';

export interface NativeAddon {
  /** `rulesGiven`: the caller chose `rules`, so a database registered with other rules is an error. */
  attach(connection: unknown, rules: CompiledRule[], rulesGiven: boolean): boolean;
  readonly duckdbVersion: string;
  /** The extension points' native tables (src/catalog.ts mirrors the names TypeScript needs). */
  readonly catalog: NativeCatalog;
}

/** A row of native/duckdb/settings.hpp. */
export interface NativeSetting {
  name: string;
  type: string;
  default: string;
  /** Under the master switch vortex_pushdown. */
  master: boolean;
  /** Its key in the TypeScript API's flags, null where it has none. */
  key: string | null;
  description: string;
}

/** A row of native/duckdb/pushdown/aggregate_catalog.cpp. */
export interface NativeAggregate {
  kind: string;
  /** The names DuckDB binds it as. */
  names: string[];
  distinct: boolean;
  /** The name its rules are keyed on in src/rules.ts, null where that is the bound name. */
  rule: string | null;
  setting: string;
  /** Why it is not answered per group, null where it is. */
  notPerGroup: string | null;
}

export interface NativeCatalog {
  settings: NativeSetting[];
  aggregates: NativeAggregate[];
}

/** A DuckDB release this package is built, prebuilt and tested for (scripts/duckdb-lines.json). */
export interface DuckDBLine {
  duckdb: string;
  nodeApi: string;
}

/** Package root: the directory that holds binding.gyp, build/ and prebuilds/. */
export const packageRoot = join(__dirname, '..');

/** scripts/support.cjs: the supported lines and the one error for any other (shared with the install script). */
interface Support {
  unsupportedMessage(v: { duckdb: string; nodeApi?: string | null }): string;
}
function support(root = packageRoot): Support {
  return require(join(root, 'scripts', 'support.cjs')) as Support;
}

export function supportedDuckDB(root = packageRoot): DuckDBLine[] {
  const json = JSON.parse(readFileSync(join(root, 'scripts', 'duckdb-lines.json'), 'utf8')) as { lines: DuckDBLine[] };
  return json.lines.map(({ duckdb, nodeApi }) => ({ duckdb, nodeApi }));
}

/**
 * Where the addon built for DuckDB `duckdb` (e.g. "X.Y.Z") may be, in order: a local build
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
 * The binary built for the DuckDB the service's connection runs (e.g. "vX.Y.Z"). DuckDB's C++ API
 * has no ABI stability, so only an exact match is loaded. A DuckDB with no supported line gets the
 * one error (scripts/support.cjs: the version found, those supported, the command that pins one);
 * a supported one without a binary here says how to build it.
 */
export function findAddon(loadedVersion: string, root = packageRoot): string {
  const v = normalizeVersion(loadedVersion);
  const path = addonCandidates(v, root).find((p) => existsSync(p));
  if (path) return path;
  if (!supportedDuckDB(root).some((l) => l.duckdb === v)) throw new Error(support(root).unsupportedMessage({ duckdb: v }));
  const available = availableBinaries(root);
  throw new Error(
    `duckdb-vortex has no native addon for DuckDB v${v} on ${process.platform}-${process.arch} in ${root}` +
      `${available.length ? ` (binaries present for ${available.map((a) => `v${a}`).join(', ')})` : ''}. ` +
      `Build it from source (a C++17 compiler, make and Python for node-gyp; several minutes): ` +
      `npm rebuild duckdb-vortex --foreground-scripts in your service` +
      ` (in a checkout of duckdb-vortex: DUCKDB_VORTEX_NODE_API=<that @duckdb/node-api version> npm run build:native). ` +
      `See "Install in your service" in the README.`,
  );
}

let addon: NativeAddon | undefined;

/**
 * Loads the addon built for DuckDB `duckdbVersion` (the version the service's connection
 * reports). Call it only while that DuckDB is loaded (a connection exists): the addon's
 * libduckdb dependency is then the library @duckdb/node-bindings already loaded, one DuckDB
 * per process. VORTEX_ADDON_PATH selects a specific build (e.g. the sanitizer build).
 * Once loaded, the addon stays: a later call for another DuckDB is refused.
 */
export function loadAddon(duckdbVersion: string): NativeAddon {
  if (!addon) {
    const path = process.env.VORTEX_ADDON_PATH || findAddon(duckdbVersion);
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
  }
  checkDuckDBVersion(duckdbVersion, addon.duckdbVersion);
  return addon;
}
