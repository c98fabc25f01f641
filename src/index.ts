export { registerVortex, setPushdown, pushdownSettings } from './register';
export type { RegisterOptions, RegisterResult } from './register';
export {
  pushdownRules,
  decidePushdown,
  compileRules,
  typeKey,
  sumBoundHolds,
  decideGroupedPushdown,
  groupedPushdown,
  groupedOrder,
  STORED_TYPES,
} from './rules';
export type { AggregateName, PushdownFlag, PushdownFlags, PushdownRule, PushdownDecision, CompiledRule } from './rules';
export { checkDuckDBVersion, normalizeVersion } from './version';
