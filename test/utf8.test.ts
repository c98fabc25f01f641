import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { version } from '@duckdb/node-api';
import { loadAddon } from '../src/native';

// The reader refuses a VARCHAR segment, a statistic or a name that is not well-formed UTF-8
// (format/utf8.cpp), which every string scan runs over every byte. Its answer must be the
// Unicode standard's, as Node's fatal TextDecoder gives it: no overlongs, no surrogates, nothing
// past U+10FFFF, no truncated or stray continuation bytes.

interface Hooks {
  validUtf8(bytes: Buffer): boolean;
}
const hooks = (loadAddon(version()) as unknown as { __test: Hooks }).__test;
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const standard = (b: Buffer): boolean => {
  try {
    decoder.decode(b);
    return true;
  } catch {
    return false;
  }
};

// Bytes near the boundaries the standard draws, and runs of ASCII long enough for the 8- and
// 32-byte steps, so that an invalid byte lands at every offset within and after them.
const edgeByte = fc.constantFrom(0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff);
const piece = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => Buffer.from(s, 'utf8')),
  fc.integer({ min: 0, max: 70 }).map((n) => Buffer.alloc(n, 0x61)),
  // Two-byte text with spaces: the sixteen-byte step's own case, leads falling on block ends.
  fc.string({ unit: fc.constantFrom('я', 'ж', 'é', 'ß', ' ', 'q', '—', '€', '\u0800', '\uffff', '\ud7ff', '\ue000'), maxLength: 40 }).map((s) => Buffer.from(s, 'utf8')),
  fc.array(edgeByte, { minLength: 1, maxLength: 4 }).map((b) => Buffer.from(b)),
  fc.uint8Array({ minLength: 1, maxLength: 6 }).map((b) => Buffer.from(b)),
);

describe('UTF-8 validation', () => {
  it('agrees with the standard on random and boundary bytes', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const b = Buffer.concat(pieces);
        expect(hooks.validUtf8(b), b.toString('hex')).toBe(standard(b));
      }),
      { numRuns: 20000, seed: 20261207 },
    );
  });

  it('decides every lead byte with every second byte', () => {
    let invalid = 0;
    for (let lead = 0; lead < 256; lead++) {
      for (let second = 0; second < 256; second++) {
        for (const tail of [[], [0x80], [0x80, 0x80], [0xbf, 0xbf, 0x41]]) {
          const b = Buffer.from([0x41, lead, second, ...tail]);
          const ok = standard(b);
          invalid += ok ? 0 : 1;
          if (hooks.validUtf8(b) !== ok) expect.fail(`${b.toString('hex')}: standard says ${ok}`);
        }
      }
    }
    expect(invalid).toBeGreaterThan(100000);
  });
});
