import { join } from 'node:path';
import type { CompiledRule } from './rules';

export interface NativeAddon {
  /** `rulesGiven`: the caller chose `rules`, so a database registered with other rules is an error. */
  attach(connection: unknown, rules: CompiledRule[], rulesGiven: boolean): boolean;
  readonly duckdbVersion: string;
}

/** Package root: the directory that holds binding.gyp, build/ and prebuilds/. */
export const packageRoot = join(__dirname, '..');

let addon: NativeAddon | undefined;

/**
 * Loads the addon after @duckdb/node-api, so that the libduckdb it links is the one
 * @duckdb/node-bindings already loaded (one DuckDB per process). VORTEX_ADDON_PATH
 * selects a specific build (e.g. the sanitizer build).
 */
export function loadAddon(): NativeAddon {
  if (addon) return addon;
  require('@duckdb/node-api');
  const explicit = process.env.VORTEX_ADDON_PATH;
  try {
    addon = explicit ? (require(explicit) as NativeAddon) : (require('node-gyp-build')(packageRoot) as NativeAddon);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(
      `duckdb-vortex: the native addon could not be loaded (${why}). ` +
        `Build it with "npm run build:native" (cmake-js) or "npx node-gyp rebuild" in ${packageRoot}.`,
    );
  }
  return addon;
}
