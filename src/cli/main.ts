#!/usr/bin/env node
/**
 * vtx: the duckdb-vortex command line. Exit status: 0 on success, 1 when a command fails
 * (a file that cannot be read or is not .vtx, a SQL error, a checksum or coherence mismatch),
 * 2 on a usage error (unknown command or option, missing or invalid argument).
 */
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../native';
import { registerCoherence } from './commands/coherence';
import { registerConvert } from './commands/convert';
import { registerDemo } from './commands/demo';
import { registerExplain } from './commands/explain';
import { registerInspect } from './commands/inspect';
import { registerQuery } from './commands/query';
import { CliError, EXIT_FAILURE, EXIT_USAGE, errorMessage } from './errors';

function packageVersion(): string {
  try {
    return String(JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version);
  } catch {
    return 'unknown';
  }
}

export function buildProgram(): Command {
  const program = new Command('vtx');
  // Before any subcommand is added, so that every subcommand inherits these settings.
  program
    .description('Vortex-style .vtx files for DuckDB: convert, query, explain, inspect, and the aggregation coherence report')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .showSuggestionAfterError()
    .showHelpAfterError('(add --help for usage)');
  registerDemo(program);
  registerConvert(program);
  registerQuery(program);
  registerExplain(program);
  registerInspect(program);
  registerCoherence(program);
  program.addHelpText('after', `
Exit status: 0 success, 1 failure (unreadable or non-.vtx file, SQL error, mismatch), 2 usage error.
Run "vtx <command> --help" for a command's options.`);
  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv as string[]);
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Commander has printed its message (or the help/version text) already.
      return e.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    process.stderr.write(`vtx: ${errorMessage(e)}\n`);
    if (process.env.VTX_DEBUG && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
    return e instanceof CliError ? e.exitCode : EXIT_FAILURE;
  }
}

if (require.main === module) {
  // A closed pipe (`vtx query ... | head`) ends the output quietly.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
