/** One string for a result set that tells apart NaN, ±inf, -0.0, NULL, bigints and blobs. */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) => {
    if (typeof x === 'bigint') return `${x}n`;
    if (typeof x === 'number') {
      if (Number.isNaN(x)) return 'NaN';
      if (Object.is(x, -0)) return '-0';
      if (!Number.isFinite(x)) return String(x);
    }
    if (x instanceof Uint8Array) return `blob:${Buffer.from(x).toString('hex')}`;
    return x;
  });
}
