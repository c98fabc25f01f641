/**
 * Plain-text tables for people: a header, a rule, aligned columns; numbers right-aligned.
 * Widths count code points, and cells are cut to `maxWidth` with an ellipsis.
 */
export interface Column {
  name: string;
  /** Shown under the name when given (DuckDB type). */
  type?: string;
  align?: 'left' | 'right';
}

function width(s: string): number {
  return [...s].length;
}

function cut(s: string, max: number): string {
  const oneLine = s.replace(/\r?\n/g, '↵').replace(/\t/g, ' ');
  const chars = [...oneLine];
  return chars.length <= max ? oneLine : `${chars.slice(0, max - 1).join('')}…`;
}

function pad(s: string, w: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, w - width(s)));
  return align === 'right' ? fill + s : s + fill;
}

export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[], maxWidth = 60): string {
  const cells = rows.map((r) => r.map((c) => cut(c, maxWidth)));
  const widths = columns.map((c, i) =>
    Math.max(width(c.name), width(c.type ?? ''), ...cells.map((r) => width(r[i] ?? ''))),
  );
  const line = (values: readonly string[], header = false) =>
    values
      .map((v, i) => pad(v, widths[i], header ? 'left' : (columns[i].align ?? 'left')))
      .join('  ')
      .trimEnd();
  const out = [line(columns.map((c) => c.name), true)];
  if (columns.some((c) => c.type)) out.push(line(columns.map((c) => c.type ?? ''), true));
  out.push(widths.map((w) => '─'.repeat(w)).join('  '));
  for (const r of cells) out.push(line(r));
  return out.join('\n');
}

/** `key  value` lines with the keys padded to one width. */
export function formatPairs(pairs: readonly (readonly [string, string])[]): string {
  const w = Math.max(0, ...pairs.map(([k]) => width(k)));
  return pairs.map(([k, v]) => `${pad(k, w, 'left')}  ${v}`).join('\n');
}
