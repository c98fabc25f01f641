/**
 * The coherence report as Markdown (docs/COHERENCE.md), JSON and HTML. Deterministic for a given
 * DuckDB and rules.ts: no timings, dates or paths, so the committed Markdown can be compared with
 * a fresh run.
 */
import { pushdownRules } from '../rules';
import type { Documented } from './cases';
import { outcomeText, seedText, type CaseResult, type Measurement, type Outcome } from './measure';

export type ReportFormat = 'md' | 'json' | 'html';
export const REPORT_FORMATS: readonly ReportFormat[] = ['md', 'json', 'html'];

interface Summary {
  cases: number;
  seedCases: number;
  extraCases: number;
  matches: number;
  mismatches: number;
  vortexReproducesSeed: number;
}

export function summarize(m: Measurement): Summary {
  const seed = m.results.filter((r) => r.case.source === 'seed');
  const matches = m.results.filter((r) => r.match).length;
  return {
    cases: m.results.length,
    seedCases: seed.length,
    extraCases: m.results.length - seed.length,
    matches,
    mismatches: m.results.length - matches,
    vortexReproducesSeed: seed.filter((r) => r.vortexMatchesSeed).length,
  };
}

// ---- JSON ----------------------------------------------------------------------------

function outcomeJson(o: Outcome): Record<string, string> {
  if (o.kind === 'value') return { value: o.text, type: o.type };
  if (o.kind === 'unsupported') return { unsupported: o.message };
  return { error: o.message, error_type: o.errorType };
}

export function renderJson(m: Measurement): string {
  const s = summarize(m);
  const report = {
    report: 'duckdb-vortex aggregation coherence',
    duckdb: m.duckdbVersion,
    columns: {
      documented: 'ANSI, DataFusion and the upstream vortex-duckdb integration as documented in the seed (not measured)',
      duckdb: 'measured on a native DuckDB table',
      vortex: "measured with the Vortex kernels' own semantics: vortex_kernel(file, 'x', kernel, skip_nans := true)",
      vortex_duckdb: 'measured on the .vtx file with pushdown on',
      vortex_duckdb_pushdown_off: 'measured on the .vtx file with SET vortex_pushdown = false',
      pushed: 'EXPLAIN shows the aggregate answered by VORTEX_SCAN (Pushed Aggregates)',
      exact: 'float sums DuckDB does not add exactly: the exact sum (or mean) of the values rounded once, in BigInt arithmetic',
      verdict: 'match when pushed == pushdown off == DuckDB (value and type) and pushed is what rules.ts decides; where exact is given, pushed == pushdown off == exact instead',
    },
    summary: {
      cases: s.cases, seed_cases: s.seedCases, extra_cases: s.extraCases, matches: s.matches, mismatches: s.mismatches,
      vortex_reproduces_seed: s.vortexReproducesSeed,
    },
    cases: m.results.map((r) => ({
      id: r.case.id,
      source: r.case.source,
      ...(r.case.seedIndex !== undefined ? { seed_index: r.case.seedIndex } : {}),
      group: r.case.group,
      type: r.case.type,
      values: r.case.values,
      fn: r.case.fn,
      query: `SELECT ${r.case.expr} FROM t`,
      ...(r.case.settings ? { settings: r.case.settings } : {}),
      ...(r.case.note ? { note: r.case.note } : {}),
      zones: r.zones,
      documented: r.case.documented ?? null,
      measured: {
        duckdb: outcomeJson(r.duckdb),
        vortex: outcomeJson(r.vortex),
        vortex_duckdb: outcomeJson(r.pushed),
        vortex_duckdb_pushdown_off: outcomeJson(r.notPushed),
        ...(r.exact ? { exact: outcomeJson(r.exact) } : {}),
        pushed: r.wasPushed,
        pushed_with_pushdown_off: r.pushedWhileOff,
      },
      rules: { push: r.rules.push, reason: r.rules.reason, expect_pushed: r.expectPushed },
      ...(r.vortexMatchesSeed !== undefined ? { vortex_matches_seed: r.vortexMatchesSeed } : {}),
      verdict: r.match ? 'match' : 'mismatch',
      problems: r.problems,
    })),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

// ---- shared table model ------------------------------------------------------------------

const HEADERS = ['#', 'x', 'query', 'result type', 'ANSI', 'DataFusion', 'DuckDB', 'Vortex', 'Vortex + DuckDB', 'pushdown off', 'pushed', 'verdict'];

interface Cell {
  text: string;
  code?: boolean;
  documented?: boolean;
  strong?: boolean;
}

function documentedCell(d: Documented | undefined, key: 'ansi' | 'datafusion'): Cell {
  return d ? { text: seedText(d[key]), documented: true } : { text: '—' };
}

function row(r: CaseResult): Cell[] {
  const c = r.case;
  const resultType = r.duckdb.kind === 'value' ? r.duckdb.type : '—';
  const setting = Object.entries(c.settings ?? {}).map(([k, v]) => `SET ${k} = ${v}; `).join('');
  return [
    { text: c.id },
    { text: `${c.type} ${c.values}`, code: true },
    { text: `${setting}${c.expr}`, code: true },
    { text: resultType },
    documentedCell(c.documented, 'ansi'),
    documentedCell(c.documented, 'datafusion'),
    { text: outcomeText(r.duckdb) },
    { text: outcomeText(r.vortex) },
    { text: outcomeText(r.pushed) },
    { text: outcomeText(r.notPushed) },
    { text: r.wasPushed ? 'pushed' : 'not pushed' },
    r.match ? { text: 'match' } : { text: `MISMATCH: ${r.problems.join('; ')}`, strong: true },
  ];
}

function groups(m: Measurement): Map<string, CaseResult[]> {
  const out = new Map<string, CaseResult[]>();
  for (const r of m.results) out.set(r.case.group, [...(out.get(r.case.group) ?? []), r]);
  return out;
}

/** Notes of a group, each once, with the cases they belong to. */
function notes(results: CaseResult[]): [string, string[]][] {
  const out = new Map<string, string[]>();
  for (const r of results) if (r.case.note) out.set(r.case.note, [...(out.get(r.case.note) ?? []), r.case.id]);
  return [...out.entries()].map(([note, ids]) => [note, ids]);
}

/** Which types each aggregate is pushed for, and why, straight from rules.ts (one row per reason). */
function policy(): [string, string, string][] {
  const order = ['count_star', 'count', 'sum', 'fsum', 'kahan_sum', 'sumkahan', 'avg', 'favg', 'count_distinct', 'approx_count_distinct', 'min', 'max'];
  const rows = new Map<string, { fn: string; types: string[]; why: string }>();
  for (const rule of pushdownRules) {
    const fn = rule.fn === 'sum_no_overflow' ? 'sum' : rule.fn;
    const key = `${fn}\u0000${rule.why}`;
    const entry = rows.get(key) ?? { fn, types: [], why: rule.why };
    if (!entry.types.includes(rule.type)) entry.types.push(rule.type);
    rows.set(key, entry);
  }
  return [...rows.values()]
    .sort((a, b) => order.indexOf(a.fn) - order.indexOf(b.fn))
    .map((e) => [e.fn === 'count_star' ? 'count(*)' : e.fn === 'count_distinct' ? 'count(DISTINCT x)' : `${e.fn}(x)`, e.types.join(', '), e.why]);
}

const INTRO = [
  'What an ungrouped aggregate returns, engine by engine, for every row of the seed matrix',
  '(`shared/coherence/seed-matrix.json`, from the aggregation-coherence epic) and for cases beyond it.',
  'Each case is a one-column table `x`; its values are written to a `.vtx` file and queried there.',
];

const LEGEND = [
  ['ANSI, DataFusion', 'documented in the seed, *not measured* (in italics; — where the seed has no such row)'],
  ['DuckDB', 'measured on a native DuckDB table'],
  ['Vortex', "measured with the Vortex kernels' own semantics: `vortex_kernel(file, 'x', kernel, skip_nans := true)` (sum of nothing is 0, mean of nothing is NaN, NaN skipped; DECIMAL sums and means shown scaled)"],
  ['Vortex + DuckDB', 'measured on the `.vtx` file with pushdown on'],
  ['pushdown off', 'measured on the `.vtx` file with `SET vortex_pushdown = false`'],
  ['pushed', 'from `EXPLAIN`: the aggregate is answered by `VORTEX_SCAN` (`Pushed Aggregates`)'],
  ['verdict', 'match when Vortex + DuckDB = pushdown off = DuckDB, value and type, and "pushed" is what `rules.ts` decides (`decidePushdown`, with the argument a plain column); for float sums DuckDB does not add exactly (the group "Float sums"), Vortex + DuckDB and pushdown off must instead both be the exact sum of the values rounded once to the nearest double, computed in BigInt arithmetic (vortex_exact_float_sums: the same float sum in every plan)'],
];

function summaryLine(s: Summary): string {
  return `${s.cases} cases (${s.seedCases} from the seed, ${s.extraCases} beyond it): ${s.matches} match, ${s.mismatches} mismatch. ` +
    `The Vortex column reproduces the seed's Vortex column in ${s.vortexReproducesSeed} of ${s.seedCases} seed rows.`;
}

// ---- Markdown ----------------------------------------------------------------------------

function mdEscape(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\*/g, '\\*').replace(/_/g, '\\_');
}

function mdCell(c: Cell): string {
  if (c.code) return `\`${c.text.replace(/\|/g, '\\|')}\``;
  const t = mdEscape(c.text);
  if (c.documented) return `*${t}*`;
  return c.strong ? `**${t}**` : t;
}

export function renderMarkdown(m: Measurement): string {
  const s = summarize(m);
  const out: string[] = [
    '# Aggregation coherence',
    '',
    '<!-- Generated by `vtx coherence --format md > docs/COHERENCE.md`; do not edit by hand.',
    '     test/coherence.test.ts fails when this file differs from a fresh run. -->',
    '',
    ...INTRO,
    `Measured on DuckDB ${m.duckdbVersion} (one thread) by \`vtx coherence\`; the JSON and HTML forms carry the same data.`,
    '',
    ...LEGEND.map(([k, v]) => `- **${k}**: ${v}.`),
    '',
    `**${summaryLine(s)}**`,
    '',
  ];
  for (const [group, results] of groups(m)) {
    out.push(`## ${group}`, '', `| ${HEADERS.join(' | ')} |`, `|${HEADERS.map(() => '---').join('|')}|`);
    for (const r of results) out.push(`| ${row(r).map(mdCell).join(' | ')} |`);
    const n = notes(results);
    if (n.length) out.push('', ...n.map(([note, ids]) => `- ${ids.join(', ')}: ${note}.`));
    out.push('');
  }
  out.push('## Pushdown policy (from `src/rules.ts`)', '', '| aggregate | pushed for column types | why it is exact |', '|---|---|---|');
  for (const [fn, types, why] of policy()) out.push(`| \`${fn}\` | ${mdEscape(types)} | ${mdEscape(why)} |`);
  out.push('', 'Anything else is not pushed: float `min`/`max`, `sum`/`avg` of strings, wide decimals and 128-bit integers, ' +
    'DISTINCT other than `count(DISTINCT x)` (`sum(DISTINCT x)`), `count(DISTINCT)` of floats, FILTER, `approx_count_distinct` per group, ' +
    'GROUP BY keys that are neither columns nor bucket functions, and arguments that are not a plain column.', '');
  out.push('## DuckDB 1.4 and 1.5', '',
    'The package runs on every DuckDB release of the 1.4 and 1.5 lines (README, "DuckDB versions"). This document is ' +
    'measured on the release its "Measured on" line names, the dev dependency; the test suite runs the same cases on the ' +
    'newest release of each line and requires this very document there, but for that line. No case differs between the ' +
    'lines: each returns every value, type and error the other returns, so no pushed result had to change. Where a later ' +
    'DuckDB changes an answer, the pushed result follows that DuckDB and the case is listed here.', '');
  return out.join('\n');
}

// ---- HTML --------------------------------------------------------------------------------

function html(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Markdown-ish inline code (`x`) and emphasis (*x*) of the legend, as HTML. */
function inline(s: string): string {
  return html(s).replace(/`([^`]+)`/g, '<code>$1</code>').replace(/\*([^*]+)\*/g, '<em>$1</em>');
}

function htmlCell(c: Cell): string {
  const t = html(c.text);
  if (c.code) return `<td><code>${t}</code></td>`;
  if (c.documented) return `<td class="doc"><em>${t}</em></td>`;
  return c.strong ? `<td class="bad"><strong>${t}</strong></td>` : `<td>${t}</td>`;
}

export function renderHtml(m: Measurement): string {
  const s = summarize(m);
  const out: string[] = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>Aggregation coherence</title>',
    '<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1em}' +
      'td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left}th{background:#f4f4f4}' +
      'td.doc{color:#666}td.bad,tr.mismatch td{background:#fdd}code{font-size:90%}</style>',
    '</head><body>',
    '<h1>Aggregation coherence</h1>',
    `<p>${inline(INTRO.join(' '))} Measured on DuckDB ${html(m.duckdbVersion)} (one thread).</p>`,
    `<ul>${LEGEND.map(([k, v]) => `<li><strong>${html(k)}</strong>: ${inline(v)}.</li>`).join('')}</ul>`,
    `<p><strong>${html(summaryLine(s))}</strong></p>`,
  ];
  for (const [group, results] of groups(m)) {
    out.push(`<h2>${html(group)}</h2>`, '<table>', `<tr>${HEADERS.map((h) => `<th>${html(h)}</th>`).join('')}</tr>`);
    for (const r of results) out.push(`<tr${r.match ? '' : ' class="mismatch"'}>${row(r).map(htmlCell).join('')}</tr>`);
    out.push('</table>');
    const n = notes(results);
    if (n.length) out.push(`<ul>${n.map(([note, ids]) => `<li>${html(ids.join(', '))}: ${html(note)}.</li>`).join('')}</ul>`);
  }
  out.push('<h2>Pushdown policy (from <code>src/rules.ts</code>)</h2>', '<table>',
    '<tr><th>aggregate</th><th>pushed for column types</th><th>why it is exact</th></tr>');
  for (const [fn, types, why] of policy()) out.push(`<tr><td><code>${html(fn)}</code></td><td>${html(types)}</td><td>${html(why)}</td></tr>`);
  out.push('</table>', '</body></html>', '');
  return out.join('\n');
}

export function render(m: Measurement, format: ReportFormat): string {
  switch (format) {
    case 'json': return renderJson(m);
    case 'html': return renderHtml(m);
    default: return renderMarkdown(m);
  }
}
