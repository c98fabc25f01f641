// UTF-8 validation (format/utf8.cpp), which every scan of a VARCHAR segment runs over each byte:
// GB/s over 64 MiB of text of several scripts, through the addon's test hook.
//   node bench/utf8.mjs [--mib=64] [--runs=5]
import { version } from '@duckdb/node-api';
import { loadAddon } from '../dist/native.js';
import { machine, parseArgs, table } from './common.mjs';

const args = parseArgs({ mib: 64, runs: 5 });
const hooks = loadAddon(version()).__test;
const KINDS = [
  ['ASCII (URLs)', 'https://www.example.com/path/to/page?id=12345&x=1 '],
  ['Russian titles', 'квартиры форум beauty — stylerealty.org '],
  ['Chinese', '北京天气预报今天的新闻 '],
  ['accented Latin', 'café déjà vu naïve résumé '],
  ['emoji mixed in', 'ok 😀 fine 🎉 '],
];
console.log(`# UTF-8 validation, ${args.mib} MiB per text, best of ${args.runs}; ${machine()}`);
const rows = [['text', 'GB/s']];
for (const [name, unit] of KINDS) {
  const one = Buffer.from(unit, 'utf8');
  const buf = Buffer.alloc(Math.floor((args.mib << 20) / one.length) * one.length);
  for (let at = 0; at < buf.length; at += one.length) one.copy(buf, at);
  let best = Infinity;
  for (let r = 0; r < args.runs; r++) {
    const t0 = performance.now();
    if (!hooks.validUtf8(buf)) throw new Error(`${name}: refused`);
    best = Math.min(best, performance.now() - t0);
  }
  rows.push([name, (buf.length / best / 1e6).toFixed(2)]);
}
console.log(table(rows));
