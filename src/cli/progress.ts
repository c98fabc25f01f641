import type { DuckDBConnection } from '@duckdb/node-api';
import { SingleBar } from 'cli-progress';

export interface ProgressOptions {
  /** Shown before the bar. */
  label: string;
  /** Where the bar is drawn; it is drawn only when this is a terminal. */
  stream?: NodeJS.WriteStream;
  /** Milliseconds before a bar appears: quick statements draw nothing. */
  delayMs?: number;
  pollMs?: number;
}

/**
 * Runs `work` (a statement on `conn`) and, when `stream` is a terminal, draws a progress bar from
 * DuckDB's own query progress (`conn.progress`, polled while the statement runs on DuckDB's
 * threads). When the output is piped nothing is drawn and DuckDB's progress is not even asked for.
 */
export async function withProgress<T>(conn: DuckDBConnection, work: () => Promise<T>, options: ProgressOptions): Promise<T> {
  const stream = options.stream ?? process.stderr;
  if (!stream.isTTY) return work();
  // DuckDB tracks progress only with the progress bar enabled; it must not print one itself.
  await conn.run('SET enable_progress_bar = true');
  await conn.run('SET enable_progress_bar_print = false');
  const started = Date.now();
  let bar: SingleBar | undefined;
  const poll = () => {
    const p = conn.progress;
    if (!(p.percentage >= 0)) return;
    if (!bar) {
      if (Date.now() - started < (options.delayMs ?? 300)) return;
      bar = new SingleBar({
        stream,
        format: `${options.label} [{bar}] {percentage}% | elapsed {duration_formatted} | ETA {eta_formatted}`,
        barCompleteChar: '█',
        barIncompleteChar: '░',
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 20,
      });
      bar.start(100, 0);
    }
    bar.update(Math.min(99, Math.floor(p.percentage)));
  };
  const timer = setInterval(poll, options.pollMs ?? 100);
  try {
    const result = await work();
    bar?.update(100);
    return result;
  } finally {
    clearInterval(timer);
    bar?.stop();
  }
}
