import { Command, Option } from 'commander';
import { performance } from 'node:perf_hooks';
import { sqlString } from '../../sql';
import { internalQuery } from '../errors';
import { fileSize, requireInput, requireVtxName } from '../paths';
import { withProgress } from '../progress';
import { withSession } from '../session';
import { formatBytes, formatCount, formatMs } from '../units';
import { positiveInt } from '../options';

export type InputFormat = 'csv' | 'parquet' | 'json' | 'vtx';
const INPUT_FORMATS: InputFormat[] = ['csv', 'parquet', 'json', 'vtx'];

/** The reader for an input, from `--from` or the file name (compressed `.csv.gz` included). */
export function inputFormat(input: string): InputFormat | undefined {
  const name = input.toLowerCase().replace(/\.(gz|zst|zstd)$/, '');
  if (/\.(csv|tsv|txt)$/.test(name)) return 'csv';
  if (/\.(parquet|pq)$/.test(name)) return 'parquet';
  if (/\.(json|jsonl|ndjson)$/.test(name)) return 'json';
  if (/\.vtx$/.test(name)) return 'vtx';
  return undefined;
}

/** A table expression reading `input`; without a known format DuckDB's replacement scans decide. */
export function sourceSql(input: string, format: InputFormat | undefined): string {
  const path = sqlString(input);
  switch (format) {
    case 'csv': return `read_csv(${path})`;
    case 'parquet': return `read_parquet(${path})`;
    case 'json': return `read_json(${path})`;
    case 'vtx': return `vortex_scan(${path})`;
    default: return path;
  }
}

interface ConvertOptions {
  from?: InputFormat;
  rowGroupSize?: number;
  compression?: string;
  compressionLevel?: number;
}

export function copyOptions(opts: ConvertOptions): string {
  const options = ['FORMAT vortex'];
  if (opts.rowGroupSize) options.push(`ROW_GROUP_SIZE ${opts.rowGroupSize}`);
  if (opts.compression) options.push(`COMPRESSION ${opts.compression}`);
  if (opts.compressionLevel) options.push(`COMPRESSION_LEVEL ${opts.compressionLevel}`);
  return options.join(', ');
}

export function registerConvert(program: Command): void {
  program
    .command('convert')
    .summary('convert CSV, Parquet, JSON or a glob into a .vtx file')
    .description('convert anything DuckDB reads (CSV, Parquet, JSON, a glob, another .vtx) into a .vtx file')
    .argument('<input>', "input file or glob, e.g. data.csv, 'logs/*.parquet', events.json")
    .argument('<output>', 'the .vtx file to write (replaced atomically when complete)')
    .addOption(new Option('--from <format>', 'input format when the file name does not tell').choices(INPUT_FORMATS))
    .option('--row-group-size <n>', 'rows per zone (default 122880)', positiveInt)
    .addOption(new Option('--compression <codec>', 'block compression of segments').choices(['zstd', 'lz4', 'none']))
    .option('--compression-level <n>', 'zstd level, 1-22', positiveInt)
    .addHelpText('after', `
A progress bar is drawn on standard error for long conversions when it is a terminal.

Examples:
  $ vtx convert trips.csv trips.vtx
  $ vtx convert 'logs/2024-*.parquet' logs.vtx --compression lz4`)
    .action(async (input: string, output: string, opts: ConvertOptions) => {
      requireVtxName(output);
      requireInput(input);
      const sql = `COPY (SELECT * FROM ${sourceSql(input, opts.from ?? inputFormat(input))}) TO ${sqlString(output)} (${copyOptions(opts)})`;
      const started = performance.now();
      const rows = await internalQuery(() => withSession(undefined, async ({ conn }) => {
        const result = await withProgress(conn, () => conn.runAndReadAll(sql), { label: 'converting' });
        return result.getRows()[0]?.[0] ?? 0;
      }));
      const ms = performance.now() - started;
      const size = fileSize(output);
      const sizeText = size === undefined ? '' : `, ${formatBytes(size)}`;
      process.stdout.write(`wrote ${output}: ${formatCount(String(rows))} rows${sizeText} in ${formatMs(ms)}\n`);
    });
}
