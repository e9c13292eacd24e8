// Money totals of the case tools: summed in integer units of the values' own decimal precision,
// so a total carries no floating-point noise (4325325.199999996, 95151.62000000001).
import { describe, expect, it } from 'vitest';
import { sum } from '../handlers/cases/shared.ts';

describe('case money sums', () => {
  it('gives the exact decimal for values with 0.1 + 0.2 style noise', () => {
    expect(sum([0.1, 0.2])).toBe(0.3);
    expect(sum(Array.from({ length: 300 }, () => 1234.57))).toBe(370371);
    expect(sum(Array.from({ length: 5 }, () => 1234.57))).toBe(6172.85);
    expect(sum([95151.6, 0.01, 0.01])).toBe(95151.62);
    expect(sum([28543442.76, 0.01])).toBe(28543442.77);
  });

  it('keeps the finest precision among the values, integers and negatives', () => {
    expect(sum([1, 2, 3])).toBe(6);
    expect(sum([10.125, 0.005, -0.13])).toBe(10);
    expect(sum([-0.1, -0.2])).toBe(-0.3);
    expect(sum([1e-7, 2e-7])).toBe(3e-7);
    expect(sum([1e21, 1])).toBe(1e21 + 1);
  });

  it('ignores what is not a finite number, and sums nothing to 0', () => {
    expect(sum([])).toBe(0);
    expect(sum([null, undefined, 'x', Number.NaN, Number.POSITIVE_INFINITY, 0.7, 0.1])).toBe(0.8);
  });
});
