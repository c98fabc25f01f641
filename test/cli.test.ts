import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, ensureBuilt, root, vtx } from './cli-helpers';
import { tempDir } from './helpers';

const COMMANDS = ['demo', 'convert', 'query', 'explain', 'inspect', 'coherence'];

const dir = tempDir('vtx-cli-');
const sample = join(dir, 'sample.vtx');
const csv = join(dir, 'sample.csv');

function sql(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

beforeAll(async () => {
  ensureBuilt();
  // 3 zones of x BIGINT, d DOUBLE (with a NaN), s VARCHAR (with NULLs).
  const made = await vtx(['query', `COPY (SELECT i::BIGINT AS x, CASE WHEN i = 7 THEN 'nan'::DOUBLE ELSE i / 4 END AS d,
    CASE WHEN i % 10 = 0 THEN NULL ELSE 'k' || (i % 7) END AS s FROM range(2500) t(i))
    TO ${sql(sample)} (FORMAT vortex, ROW_GROUP_SIZE 1000)`]);
  expect(made.stderr).toBe('');
  expect(made.code).toBe(0);
  writeFileSync(csv, 'id,name,score\n1,ann,1.5\n2,bob,\n3,"c,d",-2\n');
});

describe('vtx: usage, help and exit codes', async () => {
  it('--help lists every subcommand and exits 0', async () => {
    const r = await vtx(['--help']);
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
    expect(r.stdout).toContain('Exit status');
  });

  it.each(COMMANDS)('%s --help exits 0 with its usage', async (c) => {
    const r = await vtx([c, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: vtx ${c}`);
    expect(r.stderr).toBe('');
  });

  it('help <command> works like <command> --help', async () => {
    const r = await vtx(['help', 'inspect']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: vtx inspect');
  });

  it('--version prints the package version', async () => {
    const r = await vtx(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
  });

  it('no command: help on stderr, exit 2', async () => {
    const r = await vtx([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Usage: vtx');
  });

  it('an unknown command, option or a missing argument is a usage error (exit 2)', async () => {
    const unknown = await vtx(['inspekt', sample]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'inspekt'");
    expect(unknown.stderr).toContain('inspect'); // the suggestion
    const option = await vtx(['query', '--bogus', 'SELECT 1']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("unknown option '--bogus'");
    const missing = await vtx(['inspect']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument 'file'");
    const invalid = await vtx(['query', '--max-rows', 'many', 'SELECT 1']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('expected a positive integer');
    const conflict = await vtx(['query', '--json', '--csv', 'SELECT 1']);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toContain('cannot be used with');
  });
});

describe('vtx query', async () => {
  it('prints a readable table with names, types and a row count', async () => {
    const r = await vtx(['query', `SELECT count(*) AS n, sum(x) AS total, min(s) AS lo FROM ${sql(sample)}`]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0].split(/\s+/)).toEqual(['n', 'total', 'lo']);
    expect(lines[1].split(/\s+/)).toEqual(['BIGINT', 'HUGEINT', 'VARCHAR']);
    expect(lines[3].trim().split(/\s+/)).toEqual(['2500', '3123750', 'k0']);
    expect(lines[4]).toBe('1 row');
  });

  it('--json prints an array of row objects', async () => {
    const r = await vtx(['query', '--json', `SELECT x, d, s FROM ${sql(sample)} WHERE x IN (7, 10) ORDER BY x`]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { x: '7', d: 'NaN', s: 'k0' },
      { x: '10', d: 2.5, s: null },
    ]);
  });

  it('--csv prints RFC 4180 CSV with a header', async () => {
    const r = await vtx(['query', '--csv', `SELECT 1 AS a, 'x,y' AS b, NULL AS c, '' AS d, 2::DOUBLE AS e, 'say "hi"' AS f`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('a,b,c,d,e,f\r\n1,"x,y",,"",2.0,"say ""hi"""\r\n');
  });

  it('reads SQL from standard input with "-"', async () => {
    const r = await vtx(['query', '--csv', '-'], { input: 'SELECT 40 + 2 AS answer' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('answer\r\n42\r\n');
  });

  it('limits the table with --max-rows and says so', async () => {
    const r = await vtx(['query', '--max-rows', '3', `SELECT x FROM ${sql(sample)} ORDER BY x`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('2,500 rows (3 shown; --max-rows to see more)');
  });

  it("a SQL error prints DuckDB's message once and exits 1", async () => {
    const r = await vtx(['query', 'SELEC 1']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^vtx: Parser Error: syntax error at or near "SELEC"/);
    expect(r.stderr.match(/LINE 1:/g)).toHaveLength(1);
    const missing = await vtx(['query', 'SELECT * FROM no_such_table']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Catalog Error: Table with name no_such_table does not exist');
  });

  it('a query over a missing .vtx file names the file and exits 1', async () => {
    const path = join(dir, 'missing.vtx');
    const r = await vtx(['query', `SELECT count(*) FROM ${sql(path)}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(path);
  });
});

describe('vtx explain', async () => {
  it('marks the aggregates pushed into VORTEX_SCAN', async () => {
    const r = await vtx(['explain', `SELECT count(*), sum(x), max(s) FROM ${sql(sample)}`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('VORTEX_SCAN');
    const marked = r.stdout.split('\n').filter((l) => l.endsWith('◀ pushed'));
    expect(marked.some((l) => l.includes('Pushed Aggregates'))).toBe(true);
    expect(marked.some((l) => l.includes('max(s)'))).toBe(true);
    expect(r.stdout).toMatch(/^pushed: count_star\(\), sum(_no_overflow)?\(x\), max\(s\) /m);
  });

  it('says when nothing was pushed (float max is never pushed)', async () => {
    const r = await vtx(['explain', `SELECT max(d) FROM ${sql(sample)}`]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('◀ pushed');
    expect(r.stdout).toMatch(/^not pushed: max\(d\): float min\/max is never pushed/m);
    expect(r.stdout).toContain('docs/COHERENCE.md in the duckdb-vortex package');
    expect(r.stdout).toContain('UNGROUPED_AGGREGATE');
  });

  it('names what was pushed and what was not, and why, in a SELECT list pushed in part', async () => {
    const r = await vtx(['explain', `SELECT count(*), sum(x), max(d) FROM ${sql(sample)}`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^pushed: count_star\(\), sum(_no_overflow)?\(x\) /m);
    expect(r.stdout).toMatch(/^not pushed: max\(d\): float min\/max is never pushed/m);
  });

  it('a SQL error exits 1', async () => {
    const r = await vtx(['explain', 'SELECT nope FROM range(3)']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Binder Error');
  });
});

describe('vtx inspect', async () => {
  it('shows schema, zones, encodings, statistics, sizes and checksums', async () => {
    const r = await vtx(['inspect', sample]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^file\s+.*sample\.vtx$/m);
    expect(r.stdout).toMatch(/^rows\s+2,500 in 3 zones$/m);
    expect(r.stdout).toMatch(/^checksums\s+9 of 9 segments ok$/m);
    expect(r.stdout).toMatch(/^x\s+BIGINT\s+/m);
    expect(r.stdout).toMatch(/^s\s+VARCHAR\s+/m);
    // zone 2 of x: rows 2000..2499, exact min/max
    expect(r.stdout).toMatch(/^\s+2\s+2000\s+500\s+x\s+\S+\s+\S+\s+\d+\s+\d+\s+\d+\s+0\s+0\s+2000\s+2499\s+yes\s+ok$/m);
  });

  it('--json has the same facts for machines', async () => {
    const r = await vtx(['inspect', '--json', sample]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.rows).toBe(2500);
    expect(j.sizeBytes).toBeGreaterThan(0);
    expect(j.columns.map((c: { name: string; type: string }) => `${c.name} ${c.type}`)).toEqual(['x BIGINT', 'd DOUBLE', 's VARCHAR']);
    expect(j.zones.map((z: { firstRow: number; rows: number }) => [z.firstRow, z.rows])).toEqual([[0, 1000], [1000, 1000], [2000, 500]]);
    const d0 = j.zones[0].chunks[1];
    expect(d0).toMatchObject({ column: 'd', nans: 1, min: '0.0', max: '249.75', minMaxExact: true, checksum: 'ok' });
    expect(j.columns[2].nulls).toBe(250);
    expect(j.checksums).toEqual({ verified: true, segments: 9, ok: 9, mismatch: 0 });
    const stored = j.columns.reduce((a: number, c: { storedBytes: number }) => a + c.storedBytes, 0);
    expect(stored).toBeLessThan(j.sizeBytes);
  });

  it('shows the key-value metadata a COPY wrote, in text and JSON', async () => {
    const path = join(dir, 'kv.vtx');
    const made = await vtx(['query', `COPY (SELECT 1 AS x) TO ${sql(path)} (FORMAT vortex, KV_METADATA {owner: 'team é', raw: '\\x00\\x01'::BLOB})`]);
    expect(made.stderr).toBe('');
    const r = await vtx(['inspect', path]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Key-value metadata$/m);
    expect(r.stdout).toMatch(/^owner\s+team é$/m);
    const j = JSON.parse((await vtx(['inspect', '--json', path])).stdout);
    expect(j.keyValue).toEqual([{ key: 'owner', value: 'team é' }, { key: 'raw', value: '\u0000\u0001' }]);
    // None written: no section.
    expect((await vtx(['inspect', sample])).stdout).not.toContain('Key-value metadata');
  });

  it('a bad path is named on stderr, exit 1', async () => {
    const path = join(dir, 'nope.vtx');
    const r = await vtx(['inspect', path]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`vtx: cannot open '${path}': No such file or directory\n`);
    const asDir = await vtx(['inspect', dir]);
    expect(asDir.code).toBe(1);
    expect(asDir.stderr).toContain('Is a directory');
  });

  it('a file that is not .vtx is refused, naming it, exit 1', async () => {
    const r = await vtx(['inspect', csv]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(csv);
    expect(r.stderr).toContain('not a valid .vtx file');
    expect(r.stderr).not.toContain('LINE 1'); // our own query is not the user's business
  });

  it('a corrupt segment is reported as a checksum mismatch, exit 1', async () => {
    const j = JSON.parse((await vtx(['inspect', '--json', sample])).stdout);
    const chunk = j.zones[1].chunks[0];
    const bytes = readFileSync(sample);
    bytes[chunk.offset + Math.floor(chunk.storedBytes / 2)] ^= 0xff;
    const bad = join(dir, 'corrupt.vtx');
    writeFileSync(bad, bytes);
    const r = await vtx(['inspect', bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^checksums\s+1 of 9 segments MISMATCH$/m);
    expect(r.stdout).toMatch(/^\s+1\s+1000\s+1000\s+x\s.*mismatch$/m);
    expect(r.stderr).toContain('1 of 9 segments failed checksum verification');
    const unverified = await vtx(['inspect', '--no-verify', bad]);
    expect(unverified.code).toBe(0);
    expect(unverified.stdout).toMatch(/^checksums\s+not verified/m);
  });
});

describe('vtx convert', async () => {
  it('converts a CSV, and the result reads back', async () => {
    const out = join(dir, 'from-csv.vtx');
    const r = await vtx(['convert', csv, out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(new RegExp(`^wrote ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 3 rows, .* in `));
    const back = await vtx(['query', '--csv', `SELECT * FROM ${sql(out)} ORDER BY id`]);
    expect(back.stdout).toBe('id,name,score\r\n1,ann,1.5\r\n2,bob,\r\n3,"c,d",-2.0\r\n');
  });

  it('converts Parquet, JSON and a glob, with COPY options', async () => {
    const parquet = join(dir, 'p.parquet');
    const json = join(dir, 'j.json');
    expect((await vtx(['query', `COPY (SELECT range AS v FROM range(100)) TO ${sql(parquet)} (FORMAT parquet)`])).code).toBe(0);
    expect((await vtx(['query', `COPY (SELECT range AS v FROM range(100, 150)) TO ${sql(json)} (FORMAT json)`])).code).toBe(0);
    for (const [input, rows] of [[parquet, 100], [json, 50]] as const) {
      const out = `${input}.vtx`;
      const r = await vtx(['convert', input, out, '--compression', 'lz4', '--row-group-size', '30']);
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse((await vtx(['inspect', '--json', out])).stdout);
      expect(j.rows).toBe(rows);
      expect(j.zones.length).toBeGreaterThan(1);
    }
    writeFileSync(join(dir, 'part-1.csv'), 'a,b\n1,x\n2,y\n');
    writeFileSync(join(dir, 'part-2.csv'), 'a,b\n3,z\n');
    const globOut = join(dir, 'glob.vtx');
    const g = await vtx(['convert', join(dir, 'part-*.csv'), globOut]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout).toContain(': 3 rows');
    expect((await vtx(['query', '--csv', `SELECT sum(a) AS s, string_agg(b, '' ORDER BY a) AS b FROM ${sql(globOut)}`])).stdout).toBe('s,b\r\n6,xyz\r\n');
  });

  it('refuses a missing input (exit 1), a non-.vtx output and a bad option (exit 2)', async () => {
    const missing = await vtx(['convert', join(dir, 'none.csv'), join(dir, 'x.vtx')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`vtx: cannot open '${join(dir, 'none.csv')}': No such file or directory\n`);
    const noMatch = await vtx(['convert', join(dir, 'none-*.csv'), join(dir, 'x.vtx')]);
    expect(noMatch.code).toBe(1);
    expect(noMatch.stderr).toContain('none-*.csv');
    const badName = await vtx(['convert', csv, join(dir, 'out.parquet')]);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('output file must end in .vtx');
    const badCodec = await vtx(['convert', csv, join(dir, 'x.vtx'), '--compression', 'gzip']);
    expect(badCodec.code).toBe(2);
    expect(existsSync(join(dir, 'x.vtx'))).toBe(false);
  });
});

describe('vtx convert progress bar (multi-million-row CSV)', async () => {
  const big = join(dir, 'big.csv');
  const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

  beforeAll(async () => {
    const r = await vtx(['query', `COPY (SELECT i AS id, i * 0.5 AS v, 'name' || (i % 1000) AS s FROM range(3000000) t(i)) TO ${sql(big)} (HEADER)`]);
    expect(r.code, r.stderr).toBe(0);
  });

  it.skipIf(!hasScript)('draws a bar on a terminal', async () => {
    const out = join(dir, 'big-tty.vtx');
    const command = [process.execPath, cli, 'convert', big, out].map((a) => `'${a}'`).join(' ');
    // util-linux script(1) runs the command on a pseudo-terminal; -e returns its exit status.
    const r = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 });
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/converting \[[█░]+\] \d+%/);
    expect(r.stdout).toContain('100%');
    expect(r.stdout).toContain('3,000,000 rows');
  });

  it('draws nothing when piped', async () => {
    const out = join(dir, 'big-pipe.vtx');
    const r = await vtx(['convert', big, out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toContain('converting');
    expect(r.stdout).toMatch(/^wrote .*: 3,000,000 rows, [\d.]+ \w+ in [\d.]+ m?s\n$/);
  });
});

describe('vtx demo', async () => {
  it('writes a sample, shows the pushed plan, the result and the timings', async () => {
    const keep = join(dir, 'demo');
    const r = await vtx(['demo', '--rows', '300000', '--runs', '3', '--dir', keep]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^file\s+.*demo\.vtx$/m);
    expect(r.stdout).toMatch(/^rows\s+300,000 /m);
    expect(r.stdout).toMatch(/^size\s+[\d.]+ \w+ \([\d,]+ bytes\), \d+ zones$/m);
    expect(r.stdout).toContain('Pushed Aggregates:');
    expect(r.stdout).toContain('◀ pushed');
    expect(r.stdout).toMatch(/^\s+300000\s+\d+\s+[\d.]+\s+\d+\s+\d+$/m); // count, sum, avg, min, max
    expect(r.stdout).toMatch(/^ {2}pushed\s+[\d.]+ m?s$/m);
    expect(r.stdout).toMatch(/^ {2}SET vortex_pushdown = false\s+[\d.]+ m?s$/m);
    expect(r.stdout).toMatch(/^ {2}ratio\s+[\d.]+× faster with pushdown$/m);
    expect(existsSync(join(keep, 'demo.vtx'))).toBe(true);
  });
});

describe('vtx coherence (formats; the content is checked in coherence.test.ts)', async () => {
  it('--format html is a standalone page with every case', async () => {
    const r = await vtx(['coherence', '--format', 'html']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^<!doctype html>/);
    expect(r.stdout).toContain('<td>S01</td>');
    expect(r.stdout).not.toContain('class="mismatch"');
  });

  it('an unknown format is a usage error; a bad seed file exits 1', async () => {
    const r = await vtx(['coherence', '--format', 'xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Allowed choices are md, json, html');
    const seed = await vtx(['coherence', '--seed', join(dir, 'no-seed.json')]);
    expect(seed.code).toBe(1);
    expect(seed.stderr).toContain('no-seed.json');
  });
});
