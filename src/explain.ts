import type { DuckDBConnection } from '@duckdb/node-api';

/** The physical plan DuckDB prints for `EXPLAIN <sql>`. */
export async function explainPlan(conn: DuckDBConnection, sql: string): Promise<string> {
  const statement = /^\s*explain\b/i.test(sql) ? sql : `EXPLAIN ${sql}`;
  const reader = await conn.runAndReadAll(statement);
  return reader.getRows().map((row) => String(row[row.length - 1] ?? '')).join('\n');
}

const PUSHED_HEADING = 'Pushed Aggregates:';

/** The text inside a box-drawn plan line (`│  sum(x)  │` → `sum(x)`). */
function boxContent(line: string): string {
  return line.replace(/^[\s│┌┐└┘├┤┬┴─]*/, '').replace(/[\s│┌┐└┘├┤┬┴─]*$/, '');
}

const GROUPS_HEADING = 'Pushed Groups:';
const ORDER_HEADING = 'Pushed Order:';
const HEADINGS = [PUSHED_HEADING, GROUPS_HEADING, ORDER_HEADING];

/**
 * Which plan lines belong to a `Pushed Aggregates:`, `Pushed Groups:` or `Pushed Order:` entry
 * (the heading and the aggregates, keys or sort terms below it).
 */
export function pushedLines(plan: string): Set<number> {
  const lines = plan.split('\n');
  const marked = new Set<number>();
  lines.forEach((line, i) => {
    const heading = HEADINGS.find((h) => line.includes(h));
    if (!heading) return;
    marked.add(i);
    const rest = boxContent(line.slice(line.indexOf(heading) + heading.length));
    if (rest) return; // the aggregates were printed on the heading's line
    for (let j = i + 1; j < lines.length && boxContent(lines[j]) !== '' && !/^[\s│]*[└├]/.test(lines[j]); j++) marked.add(j);
  });
  return marked;
}

/**
 * The plan's columns of boxes, each as a plan of its own: DuckDB draws the children of a join
 * side by side, in columns of one box's width.
 */
function boxColumns(plan: string): string[] {
  const lines = plan.split('\n');
  const width = (lines.find((l) => l.includes('┌')) ?? '').indexOf('┐') + 1;
  const longest = Math.max(0, ...lines.map((l) => l.length));
  if (width <= 0 || longest <= width) return [plan];
  const out: string[] = [];
  for (let start = 0; start < longest; start += width) out.push(lines.map((l) => l.slice(start, start + width)).join('\n'));
  return out;
}

/** The aggregates the Vortex reader answers in this plan, as DuckDB bound them; empty when none were pushed. */
export function pushedAggregates(plan: string): string[] {
  const columns = boxColumns(plan);
  return columns.length > 1 ? columns.flatMap((c) => pushedInColumn(c)) : pushedInColumn(plan);
}

function pushedInColumn(plan: string): string[] {
  const lines = plan.split('\n');
  const out: string[] = [];
  let inOther = false; // keys or sort terms, not aggregates
  for (const i of [...pushedLines(plan)].sort((a, b) => a - b)) {
    if (lines[i].includes(GROUPS_HEADING) || lines[i].includes(ORDER_HEADING)) inOther = true;
    if (lines[i].includes(PUSHED_HEADING)) inOther = false;
    if (inOther) continue;
    const text = lines[i].includes(PUSHED_HEADING)
      ? boxContent(lines[i].slice(lines[i].indexOf(PUSHED_HEADING) + PUSHED_HEADING.length))
      : boxContent(lines[i]);
    if (text) out.push(...text.split(/,\s*(?![^()]*\))/).map((s) => s.trim()).filter(Boolean));
  }
  return out;
}

/** Whether DuckDB's plan for `sql` has aggregates answered by the Vortex reader. */
export async function isPushed(conn: DuckDBConnection, sql: string): Promise<boolean> {
  return (await explainPlan(conn, sql)).includes(PUSHED_HEADING);
}
