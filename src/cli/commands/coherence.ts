import { Command, Option } from 'commander';
import { writeFileSync } from 'node:fs';
import { allCases } from '../../coherence/cases';
import { measure } from '../../coherence/measure';
import { REPORT_FORMATS, render, summarize, type ReportFormat } from '../../coherence/render';
import { bundledSeed, readSeed } from '../../coherence/seed';
import { CliError } from '../errors';

interface CoherenceOptions {
  format: ReportFormat;
  seed?: string;
  output?: string;
}

export function registerCoherence(program: Command): void {
  program
    .command('coherence')
    .summary('measure the aggregation coherence report (md, json, html)')
    .description('measure every aggregate case (the seed matrix and more) on DuckDB, Vortex and Vortex + DuckDB, and print the report')
    .addOption(new Option('--format <format>', 'report format').choices(REPORT_FORMATS).default('md'))
    .option('--seed <file>', 'seed matrix to use instead of the copy shipped with the package')
    .option('-o, --output <file>', 'write the report to a file instead of standard output')
    .addHelpText('after', `
Exits with status 1 when any case's verdict is a mismatch (the report is written first).

Examples:
  $ vtx coherence > docs/COHERENCE.md
  $ vtx coherence --format json | jq '.cases[] | select(.verdict != "match")'`)
    .action(async (opts: CoherenceOptions) => {
      const seed = opts.seed ? readSeed(opts.seed) : bundledSeed();
      const measurement = await measure(allCases(seed));
      const text = render(measurement, opts.format);
      if (opts.output) writeFileSync(opts.output, text);
      else process.stdout.write(text);
      const s = summarize(measurement);
      if (s.mismatches) throw new CliError(`${s.mismatches} of ${s.cases} cases mismatch`);
    });
}
