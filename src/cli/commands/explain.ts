import { Command } from 'commander';
import { explainPlan } from '../../explain';
import { databaseOption, useColor } from '../options';
import { markPlan } from '../plan-output';
import { withSession } from '../session';
import { sqlArgument } from './query';

export function registerExplain(program: Command): void {
  program
    .command('explain')
    .summary('show the plan of a query, marking what was pushed')
    .description("print DuckDB's plan for a query, marking the aggregates pushed into the Vortex reader")
    .argument('<sql>', 'the query (without EXPLAIN); "-" reads it from standard input')
    .addOption(databaseOption())
    .addHelpText('after', `
A pushed aggregate appears in the VORTEX_SCAN operator as "Pushed Aggregates" and no
aggregate operator stands above it; those lines are marked "◀ pushed".

Example:
  $ vtx explain "SELECT sum(x), max(x) FROM 'data.vtx'"`)
    .action(async (sql: string, opts: { database?: string }) => {
      const text = await sqlArgument(sql);
      const plan = await withSession(opts.database, ({ conn }) => explainPlan(conn, text));
      process.stdout.write(markPlan(plan, useColor(process.stdout)));
    });
}
