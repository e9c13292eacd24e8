// The register's history pick (handlers/register/mapping.ts `current`): every history element
// carries `periode { gyldigFra, gyldigTil }` (upstreams/register.md), and the current one is the
// open period, else the most recent. `current` is one pass with a code-unit comparison of the ISO
// dates; here it is held to the plain statement of the rule — a stable sort, later first, the first
// element taken — over random histories, including ties, open periods, missing dates and elements
// that are not objects at all.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { current } from '../handlers/register/mapping.ts';

type Doc = Record<string, unknown>;

const date = fc.constantFrom('1999-12-31', '2001-01-01', '2001-01-02', '2010-06-30', '2024-02-29');
const period = fc.record({
  gyldigFra: fc.option(date, { nil: null }),
  gyldigTil: fc.option(date, { nil: null }),
});
const element = fc.oneof(
  { weight: 8, arbitrary: fc.record({ periode: period, navn: fc.string({ maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ navn: fc.string({ maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 7, 'text', []) },
);

function fieldOf(e: Doc, name: 'gyldigFra' | 'gyldigTil'): string | null {
  const p = e['periode'] as Record<string, unknown> | undefined;
  const v = p?.[name];
  return typeof v === 'string' ? v : null;
}

/** The rule as written: objects only, stable sort (open first, then gyldigTil, gyldigFra, later first). */
function reference(history: unknown[]): Doc | undefined {
  const entries = history.filter((e): e is Doc => typeof e === 'object' && e !== null && !Array.isArray(e));
  const key = (e: Doc) => [
    fieldOf(e, 'gyldigTil') === null ? 1 : 0,
    fieldOf(e, 'gyldigTil') ?? '',
    fieldOf(e, 'gyldigFra') ?? '',
  ];
  return [...entries].sort((a, b) => {
    const [ao, at, af] = key(a);
    const [bo, bt, bf] = key(b);
    if (ao !== bo) return (bo as number) - (ao as number);
    if (at !== bt) return (bt as string) < (at as string) ? -1 : 1;
    if (af !== bf) return (bf as string) < (af as string) ? -1 : 1;
    return 0;
  })[0];
}

describe('register history: the current element', () => {
  it('is the first of the stably sorted history, later first', () => {
    fc.assert(
      fc.property(fc.array(element, { maxLength: 12 }), (history) => {
        expect(current(history)).toBe(reference(history));
      }),
      { numRuns: 2000 },
    );
  });

  it('prefers an open period, then the latest end, then the latest start; a tie keeps the first', () => {
    const closedLate = { periode: { gyldigFra: '2001-01-01', gyldigTil: '2024-02-29' } };
    const openOld = { periode: { gyldigFra: '1999-12-31', gyldigTil: null } };
    const openNew = { periode: { gyldigFra: '2010-06-30', gyldigTil: null } };
    const openNewTwin = { periode: { gyldigFra: '2010-06-30', gyldigTil: null } };
    expect(current([closedLate, openOld])).toBe(openOld);
    expect(current([openOld, openNew, closedLate])).toBe(openNew);
    expect(current([openNew, openNewTwin])).toBe(openNew);
    expect(current([closedLate])).toBe(closedLate);
    expect(current([])).toBeUndefined();
    expect(current('not a list')).toBeUndefined();
  });
});
