import { describe, expect, it } from 'vitest';
import { compileRules, decidePushdown, pushdownRules, STORED_TYPES, typeKey } from '../src/index';

const FNS = ['count_star', 'count', 'sum', 'sum_no_overflow', 'avg', 'min', 'max'] as const;
const FLAG = { count_star: 'count', count: 'count', sum: 'sum', sum_no_overflow: 'sum', avg: 'avg', min: 'min', max: 'max' } as const;

// Written from DESIGN.md's pushdown table, independently of rules.ts.
function specAllows(fn: (typeof FNS)[number], type: string): boolean {
  const ints = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT'];
  const floats = ['FLOAT', 'DOUBLE'];
  switch (fn) {
    case 'count_star': return type === '*';
    case 'count': return type !== '*';
    case 'sum_no_overflow': return ['BOOLEAN', ...ints, 'DECIMAL(<=18)', ...floats].includes(type);
    // 128-bit sums: allowed by the policy, pushed only under the native no-overflow proof (issue 10).
    case 'sum': return ['BOOLEAN', ...ints, 'DECIMAL(<=18)', ...floats, 'HUGEINT', 'DECIMAL(>18)'].includes(type);
    case 'avg': return [...ints, 'DECIMAL(<=18)', ...floats, 'HUGEINT', 'DECIMAL(>18)'].includes(type);
    case 'min': case 'max':
      return ['BOOLEAN', ...ints, 'HUGEINT', 'UHUGEINT', 'DECIMAL(<=18)', 'DECIMAL(>18)', 'VARCHAR', 'BLOB', 'DATE', 'TIME', 'TIME_NS',
        'TIMESTAMP', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'TIMESTAMP WITH TIME ZONE'].includes(type);
  }
}

describe('decidePushdown over the whole allow-list', () => {
  const cases = FNS.flatMap((fn) => (fn === 'count_star' ? ['*'] : STORED_TYPES).map((type) => [fn, type] as const));

  it.each(cases)('%s(%s) follows the spec table, and every flag switches it', (fn, type) => {
    const allowed = specAllows(fn, type);
    expect(decidePushdown(fn, type).push).toBe(allowed);
    if (!allowed) return;
    const d = decidePushdown(fn, type);
    expect(d.rule?.skipNans).toBe(false);
    expect(d.rewrite?.onEmpty).toBe(fn.startsWith('count') ? 'zero' : 'null');
    expect(decidePushdown(fn, type, { enabled: false }).push).toBe(false);
    expect(decidePushdown(fn, type, { [FLAG[fn]]: false }).push).toBe(false);
    for (const other of ['count', 'sum', 'avg', 'min', 'max'] as const) {
      if (other !== FLAG[fn]) expect(decidePushdown(fn, type, { [other]: false }).push).toBe(true);
    }
  });

  it('never pushes float min/max, whatever the flags say', () => {
    for (const fn of ['min', 'max']) {
      for (const type of ['FLOAT', 'DOUBLE', 'REAL', 'float8']) {
        const d = decidePushdown(fn, type, { enabled: true, min: true, max: true });
        expect(d.push).toBe(false);
        expect(d.reason).toMatch(/never pushed/);
      }
    }
  });

  it('maps DuckDB type spellings to rule keys', () => {
    expect(typeKey('DECIMAL(18,3)')).toBe('DECIMAL(<=18)');
    expect(typeKey('decimal(19, 2)')).toBe('DECIMAL(>18)');
    expect(typeKey('int8')).toBe('BIGINT');
    expect(typeKey('TIMESTAMPTZ')).toBe('TIMESTAMP WITH TIME ZONE');
    expect(decidePushdown('sum', 'DECIMAL(38,2)').push).toBe(true);
    expect(decidePushdown('sum', 'UHUGEINT').push).toBe(false);
    expect(decidePushdown('sum', 'DECIMAL(10,2)').push).toBe(true);
    expect(decidePushdown('stddev', 'BIGINT').push).toBe(false);
  });

  it('compiles to the native table and refuses to widen it', () => {
    const all = compileRules();
    expect(all.length).toBe(pushdownRules.length);
    expect(all.find((r) => r.fn === 'sum' && r.type === 'BIGINT')).toEqual({
      fn: 'sum', type: 'BIGINT', setting: 'vortex_pushdown_sum', skipNans: false, emptyIsNull: true, nonFiniteIsNan: false,
    });
    expect(all.find((r) => r.fn === 'fsum' && r.type === 'DOUBLE')?.nonFiniteIsNan).toBe(true);
    expect(all.find((r) => r.fn === 'sum' && r.type === 'DOUBLE')?.nonFiniteIsNan).toBe(false);
    expect(all.some((r) => (r.fn === 'min' || r.fn === 'max') && (r.type === 'FLOAT' || r.type === 'DOUBLE'))).toBe(false);
    expect(() => compileRules([{ ...pushdownRules[0], fn: 'max', type: 'DOUBLE' }])).toThrow(/not on the allow-list/);
    // A narrowed copy keeps the allow-list's own options even if the caller altered them.
    const tampered = compileRules([{ ...pushdownRules.find((r) => r.fn === 'sum')!, onEmpty: 'zero' }]);
    expect(tampered[0].emptyIsNull).toBe(true);
  });
});

describe('decideGroupedPushdown', () => {
  it('is decidePushdown per group, without 128-bit sums, and switched by grouped', async () => {
    const { decideGroupedPushdown } = await import('../src/index');
    expect(decideGroupedPushdown('sum', 'BIGINT').push).toBe(true);
    expect(decideGroupedPushdown('min', 'VARCHAR').push).toBe(true);
    expect(decideGroupedPushdown('max', 'DOUBLE').push).toBe(false);
    expect(decideGroupedPushdown('sum', 'HUGEINT').push).toBe(false);
    expect(decideGroupedPushdown('avg', 'DECIMAL(30,2)').push).toBe(false);
    expect(decideGroupedPushdown('sum', 'BIGINT', { grouped: false }).push).toBe(false);
    expect(decideGroupedPushdown('sum', 'BIGINT', { sum: false }).push).toBe(false);
  });
});
