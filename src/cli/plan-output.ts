import { pushedLines, pushedAggregates } from '../explain';
import { green } from './options';

const MARK = '◀ pushed';

/** The plan with every line of a `Pushed Aggregates` entry marked, and a one-line verdict below it. */
export function markPlan(plan: string, color: boolean): string {
  const marked = pushedLines(plan);
  const lines = plan.split('\n').map((line, i) => (marked.has(i) ? green(`${line}  ${MARK}`, color) : line));
  return `${lines.join('\n').trimEnd()}\n\n${pushSummary(plan)}\n`;
}

export function pushSummary(plan: string): string {
  const pushed = pushedAggregates(plan);
  if (pushed.length) return `pushed: ${pushed.join(', ')} (answered by VORTEX_SCAN from zone statistics)`;
  if (!/VORTEX_SCAN/.test(plan)) return 'not pushed: the plan reads no .vtx file';
  return 'not pushed: no aggregate is answered by the Vortex reader (see src/rules.ts for what may be)';
}
