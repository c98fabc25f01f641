export { registerVortex, setPushdown, pushdownSettings } from './register';
export type { RegisterOptions, RegisterResult, DuckDBConnectionLike } from './register';
export {
  pushdownRules,
  decidePushdown,
  compileRules,
  resolveRules,
  typeKey,
  sumBoundHolds,
  decideGroupedPushdown,
  groupedPushdown,
  groupedOrder,
  sortedGroups,
  STORED_TYPES,
} from './rules';
export type { AggregateName, PushdownFlag, PushdownFlags, PushdownRule, PushdownRuleName, PushdownDecision, CompiledRule } from './rules';
export { checkDuckDBVersion, normalizeVersion } from './version';
