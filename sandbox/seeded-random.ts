// The deterministic generator behind every sandbox's demo data (mulberry32): the same seed gives
// the same data on every run and machine.
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A random-access counterpart of mulberry32: a uniform number in [0, 1) fixed by up to three
 * integers (a 32-bit integer hash), so a sandbox can derive the value of any cell (a query on a
 * day, say) on demand instead of generating and keeping every cell.
 */
export function hash01(a: number, b = 0, c = 0): number {
  let h =
    Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^
    Math.imul(b ^ 0xc2b2ae35, 0x27d4eb2f) ^
    Math.imul(c ^ 0x165667b1, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 4_294_967_296;
}
