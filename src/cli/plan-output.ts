import { pushedLines, pushedAggregates } from '../explain';
import { green } from './options';

const MARK = '◀ pushed';

/** The plan with every line of a `Pushed Aggregates` entry marked, and a one-line verdict below it. */
export function markPlan(plan: string, color: boolean): string {
  const marked = pushedLines(plan);
  const lines = plan.split('\n').map((line, i) => (marked.has(i) ? green(`${line}  ${MARK}`, color) : line));
  return `${lines.join('\n').trimEnd()}\n\n${pushSummary(plan)}\n`;
}

/** The reasons EXPLAIN gives under `Not Pushed:` on the scans, box drawing folded away. */
export function declinedReasons(plan: string): string[] {
  const text = plan.replace(/[│┌┐└┘├┤┬┴─]/g, ' ').replace(/\s+/g, ' ');
  const out: string[] = [];
  for (const m of text.matchAll(/Not Pushed: (.*?)(?= (?:Projections|Filters|Files|Zones|Expression Filters|Function):| ~[\d,]+ rows?|$)/g)) {
    for (const reason of m[1].split(/; (?=[a-z_]+\(|GROUP BY)/)) out.push(reason.trim());
  }
  return out;
}

const DOCS = 'docs/COHERENCE.md in the duckdb-vortex package';

export function pushSummary(plan: string): string {
  const pushed = pushedAggregates(plan);
  const declined = declinedReasons(plan);
  const why = declined.length ? `\nnot pushed: ${declined.join('\n            ')}\n(what may be pushed, and why: ${DOCS})` : '';
  if (pushed.length) return `pushed: ${pushed.join(', ')} (answered by the Vortex reader)${why}`;
  if (!/VORTEX_SCAN/.test(plan)) return 'not pushed: the plan reads no .vtx file';
  if (declined.length) return why.slice(1);
  return `not pushed: no aggregate is answered by the Vortex reader (what may be pushed, and why: ${DOCS})`;
}
