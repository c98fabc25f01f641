import { version as duckdbVersion, type DuckDBConnection } from '@duckdb/node-api';
import { Command } from 'commander';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { explainPlan } from '../../explain';
import { sqlString } from '../../sql';
import { positiveInt, useColor } from '../options';
import { markPlan } from '../plan-output';
import { resultTable } from '../result-output';
import { withSession } from '../session';
import { formatPairs } from '../table';
import { formatBytes, formatCount, formatMs, median } from '../units';

interface DemoOptions {
  rows: number;
  runs: number;
  keep?: boolean;
  dir?: string;
}

async function timeQuery(conn: DuckDBConnection, sql: string, runs: number): Promise<number> {
  await conn.runAndReadAll(sql); // warm: footer cache, plan, file system cache
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await conn.runAndReadAll(sql);
    times.push(performance.now() - t);
  }
  return median(times);
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .summary('write a sample file and show a pushed aggregate, its plan and timings')
    .description('write a sample .vtx file, run a pushed aggregate, show EXPLAIN and the timing with and without pushdown')
    .option('--rows <n>', 'rows in the sample file', positiveInt, 5_000_000)
    .option('--runs <n>', 'timed runs of each query (the median is shown)', positiveInt, 5)
    .option('--dir <dir>', 'write the sample file here instead of a new temporary directory (implies --keep)')
    .option('--keep', 'keep the sample file')
    .addHelpText('after', `
Example:
  $ vtx demo --rows 10000000`)
    .action(async (opts: DemoOptions) => {
      const dir = opts.dir ? resolve(opts.dir) : mkdtempSync(join(tmpdir(), 'vtx-demo-'));
      const keep = Boolean(opts.keep || opts.dir);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'demo.vtx');
      const color = useColor(process.stdout);
      const say = (s = '') => process.stdout.write(`${s}\n`);
      try {
        await withSession(undefined, async ({ conn }) => {
          const t0 = performance.now();
          await conn.run(
            `COPY (SELECT i AS id, (hash(i) % 1000000)::BIGINT AS amount FROM range(${opts.rows}) t(i)) ` +
              `TO ${sqlString(file)} (FORMAT vortex)`,
          );
          const written = performance.now() - t0;
          const zones = (await conn.runAndReadAll(`SELECT count(DISTINCT zone) FROM vortex_metadata(${sqlString(file)}, verify := false)`)).getRows()[0][0];
          const size = statSync(file).size;
          say(`duckdb-vortex demo (DuckDB ${duckdbVersion()})`);
          say();
          say(formatPairs([
            ['file', file],
            ['rows', `${formatCount(opts.rows)} (id BIGINT, amount BIGINT)`],
            ['size', `${formatBytes(size)} (${formatCount(size)} bytes), ${String(zones)} zones`],
            ['written in', formatMs(written)],
          ]));
          const sql = `SELECT count(*), sum(amount), avg(amount), min(amount), max(amount) FROM ${sqlString(file)}`;
          say();
          say(`query: ${sql}`);
          say();
          say('EXPLAIN');
          process.stdout.write(markPlan(await explainPlan(conn, sql), color));
          say();
          say('result');
          process.stdout.write(resultTable(await conn.runAndReadAll(sql), 10));
          const pushed = await timeQuery(conn, sql, opts.runs);
          await conn.run('SET vortex_pushdown = false');
          const scanned = await timeQuery(conn, sql, opts.runs);
          await conn.run('SET vortex_pushdown = true');
          say();
          say(`timing (median of ${opts.runs} runs)`);
          say(formatPairs([
            ['  pushed', formatMs(pushed)],
            ['  SET vortex_pushdown = false', formatMs(scanned)],
            ['  ratio', `${(scanned / pushed).toFixed(1)}× faster with pushdown`],
          ]));
        });
      } finally {
        if (!keep) rmSync(dir, { recursive: true, force: true });
      }
      process.stdout.write(keep ? `\nkept ${file}\n` : '\n(the sample file was removed; --keep keeps it)\n');
    });
}
