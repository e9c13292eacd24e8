// fast-check settings shared by the property tests: a fixed seed by default, so `npm test` (and CI)
// is repeatable; `FC_SEED=random npm test` (or any number) explores further. A failure prints its
// seed and path, which reproduce it with FC_SEED=<seed>.
const raw = process.env.FC_SEED;
const seed = raw === undefined || raw === '' ? 20_261_125 : raw === 'random' ? Date.now() : Number(raw);

export function runs(numRuns: number): { numRuns: number; seed: number } {
  return { numRuns, seed };
}
