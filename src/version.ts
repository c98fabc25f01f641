/** Normalizes "vX.Y.Z", "X.Y.Z-dev12" or "vX.Y.Z (abc)" to "X.Y.Z". */
export function normalizeVersion(v: string): string {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(v);
  if (!m) throw new Error(`duckdb-vortex: cannot read a DuckDB version from "${v}"`);
  return `${m[1]}.${m[2]}.${m[3]}`;
}

/**
 * The addon uses DuckDB's C++ API, which has no ABI stability across releases: it may only
 * run inside the exact DuckDB release whose headers it was compiled with.
 */
export function checkDuckDBVersion(loaded: string, compiled: string): void {
  const a = normalizeVersion(loaded);
  const b = normalizeVersion(compiled);
  if (a !== b) {
    throw new Error(
      `duckdb-vortex was compiled against DuckDB v${b}, but @duckdb/node-api loaded DuckDB v${a}. ` +
        `Install @duckdb/node-api ${b} or rebuild duckdb-vortex against v${a}.`,
    );
  }
}
