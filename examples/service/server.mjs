// A small dashboard service: Node's http, @duckdb/node-api and duckdb-vortex, serving numbers
// from a .vtx dataset. Every aggregate below is answered by the vortex reader from zone
// statistics where DuckDB's rules allow it (EXPLAIN shows "Pushed Aggregates"), and equals
// what DuckDB would compute itself.
//
//   PORT=3000 DATA_DIR=./data node server.mjs
//
//   GET /health                        DuckDB version, whether vortex is registered
//   GET /api/summary                   orders, revenue, average order, first and last order
//   GET /api/regions                   the same per region (a GROUP BY answered in the reader)
//   GET /api/daily?from=YYYY-MM-DD&to=YYYY-MM-DD   revenue per day in a date range
//
// The dataset (DATA_DIR/orders.vtx) is written on first start if it is missing.
import { createServer } from 'node:http';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DuckDBInstance, version } from '@duckdb/node-api';
import { registerVortex } from 'duckdb-vortex';

const port = Number(process.env.PORT ?? 3000);
const dataDir = resolve(process.env.DATA_DIR ?? 'data');
const rows = Number(process.env.ROWS ?? 200_000);
const dataset = join(dataDir, 'orders.vtx');
const quote = (s) => `'${s.replaceAll("'", "''")}'`;

const instance = await DuckDBInstance.create(':memory:');
const setup = await instance.connect();
await registerVortex(setup);
if (!existsSync(dataset)) {
  mkdirSync(dataDir, { recursive: true });
  await setup.run(`COPY (
      SELECT i AS order_id,
             (['eu', 'us', 'apac', 'latam'])[i % 4 + 1] AS region,
             DATE '2025-01-01' + (i % 365)::INTEGER AS day,
             (((i * 7919) % 10000) / 100)::DECIMAL(10, 2) AS amount
      FROM range(${rows}) t(i)
    ) TO ${quote(dataset)} (FORMAT vortex)`);
}
setup.closeSync();

/** One connection per request: DuckDB runs them in parallel, and a failing query spoils nothing. */
async function query(sql, params) {
  const conn = await instance.connect();
  try {
    if (!params) return (await conn.runAndReadAll(sql)).getRowObjectsJson();
    const stmt = await conn.prepare(sql);
    stmt.bind(params);
    return (await stmt.runAndReadAll()).getRowObjectsJson();
  } finally {
    conn.closeSync();
  }
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const routes = {
  '/health': async () => ({ ok: true, duckdb: version(), vortex: Number((await query("SELECT count(*) AS n FROM duckdb_functions() WHERE function_name = 'vortex_scan'"))[0].n) > 0 }),
  '/api/summary': async () => (await query(
    `SELECT count(*) AS orders, sum(amount) AS revenue, avg(amount) AS average_order, min(day) AS first_day, max(day) AS last_day
     FROM vortex_scan(${quote(dataset)})`))[0],
  '/api/regions': () => query(
    `SELECT region, count(*) AS orders, sum(amount) AS revenue FROM vortex_scan(${quote(dataset)}) GROUP BY region ORDER BY region`),
  '/api/daily': (url) => {
    const from = url.searchParams.get('from') ?? '2025-01-01';
    const to = url.searchParams.get('to') ?? '2025-01-07';
    if (!ISO_DATE.test(from) || !ISO_DATE.test(to)) throw Object.assign(new Error('from and to must be dates (YYYY-MM-DD)'), { status: 400 });
    return query(
      `SELECT day, count(*) AS orders, sum(amount) AS revenue FROM vortex_scan(${quote(dataset)})
       WHERE day BETWEEN $1::DATE AND $2::DATE GROUP BY day ORDER BY day`, [from, to]);
  },
};

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const route = req.method === 'GET' ? routes[url.pathname] : undefined;
  let status = 200;
  let body;
  try {
    if (!route) {
      status = 404;
      body = { error: `no route ${req.method} ${url.pathname}` };
    } else {
      body = await route(url);
    }
  } catch (e) {
    status = e.status ?? 500;
    body = { error: e.message };
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
});

server.listen(port, () => console.log(`listening on http://localhost:${server.address().port}`));
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
