import { Command, Option } from 'commander';
import { formatResult, type ResultFormat } from '../result-output';
import { withSession } from '../session';
import { databaseOption, positiveInt } from '../options';
import { readStdin } from '../stdin';
import { usageError } from '../errors';

interface QueryOptions {
  json?: boolean;
  csv?: boolean;
  maxRows: number;
  database?: string;
}

/** The SQL argument, or standard input for `-`. */
export async function sqlArgument(sql: string): Promise<string> {
  const text = sql === '-' ? await readStdin() : sql;
  if (!text.trim()) throw usageError('no SQL given');
  return text;
}

export function registerQuery(program: Command): void {
  program
    .command('query')
    .summary('run SQL and print the result (table, --json, --csv)')
    .description('run SQL with vortex registered and print the result')
    .argument('<sql>', 'the SQL to run; "-" reads it from standard input')
    .addOption(new Option('--json', 'print the rows as a JSON array of objects').conflicts('csv'))
    .addOption(new Option('--csv', 'print the rows as CSV with a header line'))
    .option('--max-rows <n>', 'rows shown in the table (--json and --csv print all)', positiveInt, 1000)
    .addOption(databaseOption())
    .addHelpText('after', `
Examples:
  $ vtx query "SELECT count(*), sum(x) FROM 'data.vtx'"
  $ vtx query --csv "SELECT * FROM vortex_scan('logs/*.vtx', filename := true)" > out.csv
  $ echo "SELECT 42 AS answer" | vtx query --json -`)
    .action(async (sql: string, opts: QueryOptions) => {
      const text = await sqlArgument(sql);
      const format: ResultFormat = opts.json ? 'json' : opts.csv ? 'csv' : 'table';
      const out = await withSession(opts.database, async ({ conn }) => formatResult(await conn.runAndReadAll(text), format, opts.maxRows));
      process.stdout.write(out);
    });
}
