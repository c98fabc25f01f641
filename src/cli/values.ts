import type { DuckDBValue } from '@duckdb/node-api';

const FLOAT_TYPES = new Set(['FLOAT', 'DOUBLE']);

/**
 * A value as DuckDB's own shell prints it: NULL, nan, inf, floats with a decimal point, and
 * DuckDB's text for decimals, dates, lists and the rest. `null` is returned for SQL NULL so that
 * each output decides how to show it.
 */
export function cellText(value: DuckDBValue, type: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan';
    if (value === Infinity) return 'inf';
    if (value === -Infinity) return '-inf';
    if (FLOAT_TYPES.has(type) && Number.isInteger(value) && Math.abs(value) < 1e16) {
      return `${Object.is(value, -0) ? '-0' : String(value)}.0`;
    }
    return String(value);
  }
  return String(value);
}

/** Numbers are right-aligned in tables. */
export function isNumericType(type: string): boolean {
  return /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL)/.test(type);
}
