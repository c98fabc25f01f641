// Child process of test/atomic-write.test.ts: runs one large COPY ... (FORMAT vortex) to the
// target given on the command line, printing "ready" just before it starts and
// "done <milliseconds>" when it has finished. The parent kills it with SIGKILL at some point.
//   argv: <target> <rows> <value> [extra COPY options]
import { DuckDBInstance } from '@duckdb/node-api';
import { registerVortex } from '../../src/index';

async function main(): Promise<void> {
  const [target, rows, value, extra] = process.argv.slice(2);
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  await registerVortex(conn);
  const sql = `COPY (SELECT i AS id, ${Number(value)} AS v, md5(i::VARCHAR) AS s FROM range(${Number(rows)}) r(i))
    TO '${target.replace(/'/g, "''")}' (FORMAT vortex, ROW_GROUP_SIZE 20000${extra ? `, ${extra}` : ''})`;
  process.stdout.write('ready\n');
  const t0 = performance.now();
  await conn.run(sql);
  process.stdout.write(`done ${Math.round(performance.now() - t0)}\n`);
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`copy worker failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(3);
  },
);
