import type { DuckDBResultReader } from '@duckdb/node-api';
import { formatTable } from './table';
import { formatCount } from './units';
import { cellText, isNumericType } from './values';

export type ResultFormat = 'table' | 'json' | 'csv';

function csvField(s: string | null): string {
  if (s === null) return '';
  return /[",\r\n]/.test(s) || s === '' ? `"${s.replace(/"/g, '""')}"` : s;
}

/** RFC 4180 CSV with a header; SQL NULL is an empty field, the empty string a quoted one. */
export function resultCsv(reader: DuckDBResultReader): string {
  const types = reader.columnTypes().map(String);
  const lines = [reader.columnNames().map(csvField).join(',')];
  for (const row of reader.getRows()) lines.push(row.map((v, i) => csvField(cellText(v, types[i]))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** An array of row objects; BIGINT, HUGEINT and DECIMAL as strings, NaN and inf as strings (DuckDB's JSON conversion). */
export function resultJson(reader: DuckDBResultReader): string {
  return `${JSON.stringify(reader.getRowObjectsJson(), null, 2)}\n`;
}

/** A readable table with names and types, at most `maxRows` rows, and a row count. */
export function resultTable(reader: DuckDBResultReader, maxRows: number): string {
  const types = reader.columnTypes().map(String);
  const columns = reader.columnNames().map((name, i) => ({
    name, type: types[i], align: isNumericType(types[i]) ? ('right' as const) : ('left' as const),
  }));
  const all = reader.getRows();
  const shown = all.slice(0, maxRows).map((row) => row.map((v, i) => cellText(v, types[i]) ?? 'NULL'));
  const count = `${formatCount(all.length)} row${all.length === 1 ? '' : 's'}`;
  const footer = all.length > shown.length ? `${count} (${formatCount(shown.length)} shown; --max-rows to see more)` : count;
  if (columns.length === 0) return `${footer}\n`;
  return `${formatTable(columns, shown)}\n${footer}\n`;
}

export function formatResult(reader: DuckDBResultReader, format: ResultFormat, maxRows: number): string {
  if (format === 'json') return resultJson(reader);
  if (format === 'csv') return resultCsv(reader);
  return resultTable(reader, maxRows);
}
