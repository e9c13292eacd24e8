// The `aggregate` fold: group-and-sum over pages of rows as they arrive, holding only the groups
// (never more than one page of rows lives outside this module). Pure and synchronous, so the
// benchmark can feed it synthetic pages directly:
//
//   const fold = new GroupFold({ groupBy: ['Item'], sum: ['Qty'], maxGroups: 1000 });
//   for (const page of pages) if (!fold.add(page)) break;   // false: the 1,001st group appeared
//   const { groups, nonNumeric } = fold.result();
//
// Per row it allocates nothing: groups are found through one Map per `groupBy` level keyed by
// the raw primitive values (only an object-valued property would cost a JSON key string), so
// `1` and `"1"` are different groups and an absent value groups with null. Numbers are summed in
// exact integers (whole units and micro-units, so cancelling amounts leave no floating-point
// noise); numeric strings are parsed without regex; anything else (including an empty string)
// is skipped and tallied per property in `nonNumeric`, never summed as 0. An absent (null) value
// is no value: neither summed nor tallied.

/**
 * The caller's property names in the upstream's spelling, found in a page of rows: an exact name
 * as it is, a differently cased one as the rows spell it (the upstream matches filter names
 * case-insensitively, the fold reads exact keys). Names no row of the page has stay as given and
 * are listed in `missing` (a property may be absent from a page because it is null there).
 */
export function resolveNames(
  rows: readonly unknown[],
  names: readonly string[],
): { names: string[]; missing: string[] } {
  const byLower = new Map<string, string>();
  const exact = new Set<string>();
  for (const row of rows) {
    if (typeof row !== 'object' || row === null) continue;
    for (const key of Object.keys(row)) {
      if (exact.has(key)) continue;
      exact.add(key);
      const lower = key.toLowerCase();
      if (!byLower.has(lower)) byLower.set(lower, key);
    }
  }
  const missing: string[] = [];
  const resolved = names.map((name) => {
    if (exact.has(name)) return name;
    const spelled = byLower.get(name.toLowerCase());
    if (spelled !== undefined) return spelled;
    missing.push(name);
    return name;
  });
  return { names: resolved, missing };
}

export interface FoldOptions {
  readonly groupBy: readonly string[];
  readonly sum: readonly string[];
  /** Groups allowed; the first row that would open one more stops the fold. */
  readonly maxGroups: number;
}

export type FoldGroup = {
  /** The group's value of each `groupBy` property (null when absent); empty for the grand total. */
  key: Record<string, unknown>;
  count: number;
  sums: Record<string, number>;
};

export type FoldResult = {
  groups: FoldGroup[];
  /** Per `sum` property, the values skipped as not numeric; only when any was. */
  nonNumeric?: Record<string, number>;
};

interface Group {
  readonly values: unknown[];
  count: number;
  /** Per `sum` property j: whole units at 2j, micro-units at 2j + 1 (both exact integers). */
  readonly sums: Float64Array;
}

/** A group key part: primitives as they are (null for absent), anything else as its JSON text. */
function keyPart(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return value;
}

function hasDigit(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/**
 * A finite number from a number or a decimal numeric string (`"12.5"`, `" -3 "`, `"1e3"`), else
 * undefined. Refused: empty or blank strings, `Infinity`, hex/octal/binary literals, decimal
 * commas, booleans and objects.
 */
export function parseNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value - value === 0 ? value : undefined;
  if (typeof value !== 'string' || value.length === 0) return undefined;
  const n = +value;
  if (n - n !== 0) return undefined; // NaN and ±Infinity
  if (n === 0) return hasDigit(value) ? n : undefined; // '' and blanks convert to 0
  // `+'0x1f'` is 31: a radix prefix after optional blanks is not a decimal amount.
  let i = 0;
  while (i < value.length && value.charCodeAt(i) <= 32) i++;
  if (value.charCodeAt(i) === 48) {
    const next = value.charCodeAt(i + 1) | 32;
    if (next === 120 || next === 111 || next === 98) return undefined; // x, o, b
  }
  return n;
}

const MICRO = 1e6;
/** Below 2^33 a double's fraction is within half a micro-unit of the decimal it was written as. */
const FRACTION_EXACT_BELOW = 2 ** 33;

/**
 * Adds a finite amount to sum j of `lanes` in exact integers: whole units (lane 2j) and
 * micro-units of the fraction (lane 2j + 1), so 1000 × (1e9 + 0.01) − 1000 × 1e9 is exactly 10
 * (a float sum drifts to 9.99999). Fractions finer than a micro-unit are rounded. Each lane stays
 * exact below 2^53 (9e15 units; a page of a million-unit fractions is far from it).
 */
function addExact(lanes: Float64Array, j: number, value: number): void {
  if (value > -FRACTION_EXACT_BELOW && value < FRACTION_EXACT_BELOW) {
    const whole = Math.trunc(value);
    lanes[2 * j]! += whole;
    lanes[2 * j + 1]! += Math.round((value - whole) * MICRO);
    return;
  }
  // A large amount: split the shortest decimal text of the double (the number the upstream sent).
  const text = String(Math.abs(value));
  const dot = text.indexOf('.');
  if (dot < 0 || text.includes('e')) {
    lanes[2 * j]! += value;
    return;
  }
  const sign = value < 0 ? -1 : 1;
  lanes[2 * j]! += sign * Number(text.slice(0, dot));
  lanes[2 * j + 1]! += sign * Math.round(Number(`0${text.slice(dot)}`) * MICRO);
}

/** Sum j of `lanes` as one number: the micro-units carried into whole units, then combined. */
function exactSum(lanes: Float64Array, j: number): number {
  const micro = lanes[2 * j + 1]!;
  const carry = Math.trunc(micro / MICRO);
  const sum = lanes[2 * j]! + carry + (micro - carry * MICRO) / MICRO;
  return sum === 0 ? 0 : sum;
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = typeof a === 'string' ? a : String(a);
  const y = typeof b === 'string' ? b : String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export class GroupFold {
  readonly #groupBy: readonly string[];
  readonly #sum: readonly string[];
  readonly #maxGroups: number;
  /** Level maps keyed by raw values, one level per `groupBy` property; the last level holds groups. */
  readonly #root = new Map<unknown, unknown>();
  readonly #groups: Group[] = [];
  #total: Group | undefined;
  readonly #nonNumeric: Float64Array;
  #rows = 0;
  #overflow = false;

  constructor(options: FoldOptions) {
    this.#groupBy = [...new Set(options.groupBy)];
    this.#sum = [...new Set(options.sum)];
    this.#maxGroups = options.maxGroups;
    this.#nonNumeric = new Float64Array(this.#sum.length);
  }

  /** Rows folded so far. */
  get rows(): number {
    return this.#rows;
  }

  get groupCount(): number {
    return this.#groups.length;
  }

  /** A row would have opened group `maxGroups + 1`; the fold stopped there. */
  get overflow(): boolean {
    return this.#overflow;
  }

  /** Folds one page of rows; false as soon as a group beyond `maxGroups` appears (then stop). */
  add(rows: readonly unknown[]): boolean {
    if (this.#overflow) return false;
    const groupBy = this.#groupBy;
    const width = groupBy.length;
    const last = width - 1;
    const sum = this.#sum;
    const sumCount = sum.length;
    const groups = this.#groups;
    const nonNumeric = this.#nonNumeric;
    for (let r = 0; r < rows.length; r++) {
      const candidate = rows[r];
      if (typeof candidate !== 'object' || candidate === null) continue;
      const row = candidate as Record<string, unknown>;
      let group: Group | undefined;
      if (width === 0) group = this.#total;
      else {
        let level = this.#root;
        for (let j = 0; j < last; j++) {
          const part = keyPart(row[groupBy[j]!]);
          let next = level.get(part) as Map<unknown, unknown> | undefined;
          if (next === undefined) {
            next = new Map();
            level.set(part, next);
          }
          level = next;
        }
        group = level.get(keyPart(row[groupBy[last]!])) as Group | undefined;
      }
      if (group === undefined) {
        if (groups.length >= this.#maxGroups) {
          this.#overflow = true;
          return false;
        }
        const values = new Array<unknown>(width);
        for (let j = 0; j < width; j++) values[j] = row[groupBy[j]!] ?? null;
        group = { values, count: 0, sums: new Float64Array(2 * sumCount) };
        groups.push(group);
        if (width === 0) this.#total = group;
        else this.#leaf(row).set(keyPart(row[groupBy[last]!]), group);
      }
      group.count++;
      this.#rows++;
      for (let j = 0; j < sumCount; j++) {
        const value = row[sum[j]!];
        if (value === undefined || value === null) continue;
        if (typeof value === 'number' && value - value === 0) {
          addExact(group.sums, j, value);
          continue;
        }
        const n = parseNumber(value);
        if (n === undefined) nonNumeric[j]!++;
        else addExact(group.sums, j, n);
      }
    }
    return true;
  }

  /** The last level map of a row's key (created on the way down while the group is new). */
  #leaf(row: Record<string, unknown>): Map<unknown, unknown> {
    const groupBy = this.#groupBy;
    let level = this.#root;
    for (let j = 0; j < groupBy.length - 1; j++) level = level.get(keyPart(row[groupBy[j]!])) as Map<unknown, unknown>;
    return level;
  }

  /** The groups ordered by their key values, and the non-numeric tally when there is one. */
  result(): FoldResult {
    const groupBy = this.#groupBy;
    const sum = this.#sum;
    const entries = [...this.#groups];
    if (groupBy.length === 0 && entries.length === 0)
      entries.push({ values: [], count: 0, sums: new Float64Array(2 * sum.length) });
    entries.sort((a, b) => {
      for (let j = 0; j < groupBy.length; j++) {
        const c = compareValues(a.values[j], b.values[j]);
        if (c !== 0) return c;
      }
      return 0;
    });
    const groups = entries.map((g) => {
      const key: Record<string, unknown> = {};
      for (let j = 0; j < groupBy.length; j++) key[groupBy[j]!] = g.values[j];
      const sums: Record<string, number> = {};
      for (let j = 0; j < sum.length; j++) sums[sum[j]!] = exactSum(g.sums, j);
      return { key, count: g.count, sums };
    });
    const result: FoldResult = { groups };
    const nonNumeric: Record<string, number> = {};
    let any = false;
    for (let j = 0; j < sum.length; j++) {
      if (this.#nonNumeric[j]! > 0) {
        nonNumeric[sum[j]!] = this.#nonNumeric[j]!;
        any = true;
      }
    }
    if (any) result.nonNumeric = nonNumeric;
    return result;
  }
}

/** Folds all pages at once (tests and the benchmark); `overflow` when a group beyond the limit appeared. */
export function foldPages(
  pages: Iterable<readonly unknown[]>,
  options: FoldOptions,
): FoldResult & { rows: number; overflow: boolean } {
  const fold = new GroupFold(options);
  for (const page of pages) if (!fold.add(page)) break;
  return { ...fold.result(), rows: fold.rows, overflow: fold.overflow };
}
