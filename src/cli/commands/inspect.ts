import { Command } from 'commander';
import { CliError, internalQuery } from '../errors';
import { inspectFile, type Inspection } from '../inspect-model';
import { requireFile } from '../paths';
import { withSession } from '../session';
import { formatPairs, formatTable } from '../table';
import { formatBytes, formatCount } from '../units';

function counts(m: Record<string, number>): string {
  return Object.entries(m).map(([k, n]) => `${k}×${n}`).join(', ') || '—';
}

function ratio(raw: number, stored: number): string {
  return stored > 0 ? `${(raw / stored).toFixed(2)}×` : '—';
}

export function renderInspection(r: Inspection): string {
  const zoneCount = r.zones.length;
  const size = r.sizeBytes === null
    ? 'unknown'
    : r.sizeBytes < 1024 ? formatBytes(r.sizeBytes) : `${formatBytes(r.sizeBytes)} (${formatCount(r.sizeBytes)} bytes)`;
  const checks = !r.checksums.verified
    ? 'not verified (--no-verify)'
    : r.checksums.mismatch
      ? `${r.checksums.mismatch} of ${r.checksums.segments} segments MISMATCH`
      : `${r.checksums.ok} of ${r.checksums.segments} segments ok`;
  const out = [
    formatPairs([
      ['file', r.file],
      ['size', size],
      ['rows', `${formatCount(r.rows)} in ${zoneCount} zone${zoneCount === 1 ? '' : 's'}`],
      ['columns', String(r.columns.filter((c) => c.depth === 0).length)],
      ['checksums', checks],
    ]),
    ...(r.keyValue.length ? ['', 'Key-value metadata', formatTable([{ name: 'key' }, { name: 'value' }], r.keyValue.map((kv) => [kv.key, kv.value]), 64)] : []),
    '',
    'Columns',
    formatTable(
      [
        { name: 'column' }, { name: 'type' }, { name: 'encodings (zones)' }, { name: 'codecs (zones)' },
        { name: 'stored', align: 'right' }, { name: 'raw', align: 'right' }, { name: 'ratio', align: 'right' },
        { name: 'nulls', align: 'right' }, { name: 'NaNs', align: 'right' },
      ],
      // Nested columns as a tree: each stream under its parent, named by its last path step.
      r.columns.map((c) => [
        c.depth ? `${'  '.repeat(c.depth - 1)}└ ${c.name.slice(c.name.lastIndexOf('.') + 1)}` : c.name, c.type, counts(c.encodings), counts(c.codecs), formatBytes(c.storedBytes), formatBytes(c.rawBytes),
        ratio(c.rawBytes, c.storedBytes), formatCount(c.nulls), formatCount(c.nans),
      ]),
    ),
    '',
    'Zones',
  ];
  if (zoneCount === 0) {
    out.push('(none: the file has no rows)');
  } else {
    out.push(formatTable(
      [
        { name: 'zone', align: 'right' }, { name: 'first_row', align: 'right' }, { name: 'rows', align: 'right' }, { name: 'column' },
        { name: 'encoding' }, { name: 'codec' }, { name: 'stored', align: 'right' }, { name: 'raw', align: 'right' },
        { name: 'offset', align: 'right' }, { name: 'nulls', align: 'right' }, { name: 'NaNs', align: 'right' },
        { name: 'min' }, { name: 'max' }, { name: 'exact' }, { name: 'checksum' },
      ],
      r.zones.flatMap((z) => z.chunks.map((c) => [
        String(z.zone), String(z.firstRow), String(z.rows), c.stream, c.encoding, c.codec, String(c.storedBytes),
        String(c.rawBytes), String(c.offset), String(c.nulls), String(c.nans), c.min ?? 'NULL', c.max ?? 'NULL',
        c.minMaxExact === null ? '—' : c.minMaxExact ? 'yes' : 'no', c.checksum ?? '—',
      ])),
      32,
    ));
  }
  return `${out.join('\n')}\n`;
}

export function registerInspect(program: Command): void {
  program
    .command('inspect')
    .summary('show schema, zones, encodings, statistics and checksums of a .vtx file')
    .description('show the schema, zones, encodings, per-zone statistics, sizes and checksum status of a .vtx file')
    .argument('<file>', 'a .vtx file')
    .option('--json', 'print the inspection as JSON')
    .option('--no-verify', 'do not read the segments to verify their checksums')
    .addHelpText('after', `
Exits with status 1 when the file cannot be read, is not a .vtx file, or a segment fails
its checksum (the report is printed first).

Example:
  $ vtx inspect data.vtx --json | jq '.columns'`)
    .action(async (file: string, opts: { json?: boolean; verify: boolean }) => {
      requireFile(file);
      const r = await internalQuery(() => withSession(undefined, ({ conn }) => inspectFile(conn, file, opts.verify)));
      process.stdout.write(opts.json ? `${JSON.stringify(r, null, 2)}\n` : renderInspection(r));
      if (r.checksums.mismatch) {
        throw new CliError(`'${file}': ${r.checksums.mismatch} of ${r.checksums.segments} segments failed checksum verification`);
      }
    });
}
