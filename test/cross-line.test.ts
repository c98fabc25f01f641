import { version } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerText, explain, openDb, sqlString, tempDir } from './helpers';
import { DEV, NEWEST } from './lines';
import type { DuckDBConnection } from '@duckdb/node-api';

// Files written under one DuckDB line are read under the other (issue 21): their sketches were
// made with the writer's hash, and are used only where the reader's DuckDB hashes alike (the
// fingerprint in the footer); distinct counts and every other answer are the reader's DuckDB's.
// The other line's DuckDB runs in a child process: the newest release of another minor line than
// this one (test/lines.ts), the dev dependency's where it is one, else the installation that line's
// tests use (.cache/node-api-<version>), when built.

const root = join(__dirname, '..');
const here = version().replace(/^v/, '');
const minor = (v: string): string => v.split('.').slice(0, 2).join('.');
const otherLine = minor(DEV.duckdb) !== minor(here) ? DEV : NEWEST.filter((l) => minor(l.duckdb) !== minor(here)).pop()!;
// VORTEX_ADDON_PATH is cleared: a build selected for this line (the sanitizer run's) cannot load
// under the other line's DuckDB; the child finds the other line's own build.
const other = {
  duckdb: otherLine.duckdb,
  env: { VORTEX_NODE_API_DIR: otherLine === DEV ? '' : join(root, '.cache', `node-api-${otherLine.nodeApi}`), VORTEX_ADDON_PATH: '' },
};
// Only a finished cmake-js build: prebuilds/ may be being written by the packaging test meanwhile.
// In CI a line's suite runs this with the dev line's build; locally both directions run.
const otherBuilt = existsSync(join(root, 'build', `duckdb-${other.duckdb}`, 'Release', 'duckdb_vortex.node'));
const otherInstalled = !other.env.VORTEX_NODE_API_DIR || existsSync(other.env.VORTEX_NODE_API_DIR);

const dir = tempDir('vtx-cross-');
let conn: DuckDBConnection;

const TABLE = `SELECT i AS id, ['eu', 'us', 'ap', 'sa'][1 + (hash(i) % 4)::INTEGER] AS region,
  (hash(i * 7) % 50000)::BIGINT AS user_id, 'u' || (hash(i * 3) % 3000)::VARCHAR AS name,
  (hash(i * 5) % 1000)::DOUBLE / 8 AS amount, DATE '2024-01-01' + (i // 1000)::INTEGER AS day FROM range(20000) r(i)`;

/** Runs `sql` under the other line's DuckDB, with vortex registered; fails the test if it fails. */
function inOtherLine(sql: string): void {
  const script = `
    const { DuckDBInstance } = require('@duckdb/node-api');
    const { registerVortex } = require(${JSON.stringify(join(root, 'dist', 'index.js'))});
    (async () => {
      const conn = await (await DuckDBInstance.create()).connect();
      await registerVortex(conn);
      await conn.run(${JSON.stringify(sql)});
      console.log((await conn.runAndReadAll('SELECT version()')).getRowsJS()[0][0]);
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const r = spawnSync(process.execPath, ['-r', join(root, 'scripts', 'with-node-api.cjs'), '-e', script], {
    cwd: root, encoding: 'utf8', env: { ...process.env, ...other.env },
  });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout.trim()).toBe(`v${other.duckdb}`);
}

describe.skipIf(!otherBuilt || !otherInstalled)(`files written by DuckDB ${other.duckdb}, read by DuckDB ${here}`, () => {
  const file = join(dir, 'other.vtx');
  beforeAll(async () => {
    ({ conn } = await openDb());
    inOtherLine(`COPY (${TABLE}) TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 3000)`);
    await conn.run(`CREATE TABLE t AS ${TABLE}`);
  });

  it.each([
    'SELECT approx_count_distinct(user_id), approx_count_distinct(name), approx_count_distinct(region), approx_count_distinct(amount) FROM SRC',
    'SELECT count(DISTINCT region), count(DISTINCT user_id), count(DISTINCT day), count(*) FROM SRC',
    "SELECT count(DISTINCT name), approx_count_distinct(user_id) FROM SRC WHERE region IN ('eu', 'ap')",
    'SELECT day, count(DISTINCT user_id), sum(amount) FROM SRC GROUP BY day ORDER BY day',
  ])('%s: pushed, and equal to this DuckDB on the same rows', async (sql) => {
    const want = await answerText(conn, sql.replace('SRC', 't'));
    expect(await answerText(conn, sql.replace('SRC', sqlString(file)))).toBe(want);
    // DuckDB's 1.4 and 1.5 lines hash alike: the other line's sketches are used.
    expect(await explain(conn, sql.replace('SRC', sqlString(file)))).toContain('Pushed');
  });
});

// DuckDB 1.4 has no GEOMETRY: a column DuckDB 1.5 wrote reads as its WKB, as GeoParquet does there.
describe.skipIf(minor(here) !== '1.4' || minor(other.duckdb) !== '1.5' || !otherBuilt || !otherInstalled)(`a GEOMETRY column written by DuckDB ${other.duckdb}, read by DuckDB ${here}`, () => {
  it('reads as its WKB BLOB, value for value, and counts from statistics', async () => {
    ({ conn } = await openDb());
    const file = join(dir, 'geometry.vtx');
    inOtherLine(`COPY (SELECT i, CASE WHEN i % 3 = 0 THEN NULL ELSE ('POINT(' || i || ' ' || (i * 2) || ')')::GEOMETRY('OGC:CRS84') END AS g
      FROM range(50) r(i)) TO ${sqlString(file)} (FORMAT vortex, ROW_GROUP_SIZE 16)`);
    // WKB of POINT(x y): byte order 1 (little-endian), type 1, then x and y as doubles.
    const wkb = (x: number, y: number) => {
      const b = Buffer.alloc(21);
      b.writeUInt8(1, 0);
      b.writeUInt32LE(1, 1);
      b.writeDoubleLE(x, 5);
      b.writeDoubleLE(y, 13);
      return b.toString('hex').toUpperCase();
    };
    const expected = Array.from({ length: 50 }, (_, i) => [i, i % 3 === 0 ? null : wkb(i, i * 2)]);
    const got = (await conn.runAndReadAll(`SELECT i::INTEGER, hex(g) FROM vortex_scan(${sqlString(file)}) ORDER BY i`)).getRowsJS();
    expect(got).toEqual(expected);
    expect(await answerText(conn, `SELECT DISTINCT typeof(g) FROM vortex_scan(${sqlString(file)})`)).toContain('BLOB');
    const count = `SELECT count(g) FROM vortex_scan(${sqlString(file)})`;
    expect(await answerText(conn, count)).toContain(String(expected.filter(([, g]) => g !== null).length));
    expect(await explain(conn, count)).toContain('Pushed');
  });
});
