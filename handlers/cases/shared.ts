// Helpers shared by the case tools: periods, page accumulation and money totals.
import type { CasesContextWith } from '#generated/cases/contract.ts';
import { runQuery, type CasesCallContext } from './graphql-client.ts';
import { resolvePeriod, type Period } from './period.ts';

/** The period of `from`/`to`; `from` after `to` refuses the arguments (generic text, not metered). */
export function periodOf(ctx: CasesCallContext, from: string | undefined, to: string | undefined): Period {
  const period = resolvePeriod(from, to, ctx.now());
  if (!period) ctx.refuseArguments('generic');
  return period;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

/**
 * Reads pages of `pageSize` until `maxRows` rows passed `keep`, or the upstream is exhausted.
 * `truncated` is true when matching rows may have been left behind.
 */
export async function accumulate<T>(options: {
  ctx: CasesCallContext;
  query: string;
  variables: Record<string, unknown>;
  pageSize: number;
  maxRows: number;
  pick: (data: unknown) => Page<T> | null | undefined;
  keep: (row: T) => boolean;
  /** Stop after this many scanned rows even without matches (client-side filtering). */
  maxScanned?: number;
}): Promise<{ rows: T[]; truncated: boolean; scanned: number }> {
  const rows: T[] = [];
  let cursor: string | null = null;
  let scanned = 0;
  for (;;) {
    const data = await runQuery<unknown>(options.ctx, options.query, {
      ...options.variables,
      cursor,
      limit: options.pageSize,
    });
    const page = options.pick(data);
    const items = page?.items ?? [];
    options.ctx.progress(scanned + items.length, undefined, `${scanned + items.length} rows read`);
    for (let i = 0; i < items.length; i++) {
      const row = items[i]!;
      scanned++;
      if (!options.keep(row)) continue;
      if (rows.length === options.maxRows) return { rows, truncated: true, scanned };
      rows.push(row);
    }
    cursor = page?.nextCursor ?? null;
    if (!cursor || items.length === 0) return { rows, truncated: false, scanned };
    if (rows.length === options.maxRows) {
      // A full result with more pages: truncated only if another matching row exists. Look once.
      const next = options.pick(
        await runQuery<unknown>(options.ctx, options.query, { ...options.variables, cursor, limit: options.pageSize }),
      );
      return { rows, truncated: (next?.items ?? []).some(options.keep) || Boolean(next?.nextCursor), scanned };
    }
    if (options.maxScanned !== undefined && scanned >= options.maxScanned) return { rows, truncated: true, scanned };
  }
}

/** A finite number as an exact decimal: integer digits and the number of decimals (its shortest form). */
function decimal(value: number): { digits: bigint; scale: number } {
  const [mantissa = '0', exponent = '0'] = String(Math.abs(value)).split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  let digits = BigInt(whole + fraction);
  let scale = fraction.length - Number(exponent);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits: value < 0 ? -digits : digits, scale };
}

/**
 * The total of money values (non-numbers ignored), summed exactly in integer units of the finest
 * precision among the values themselves (the upstream's precision is undocumented): rows of
 * 1234.57 sum in cents, so a total never carries floating-point noise such as 95151.62000000001.
 */
export function sum(values: readonly unknown[]): number {
  const parts = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).map(decimal);
  const scale = parts.reduce((max, p) => Math.max(max, p.scale), 0);
  const total = parts.reduce((acc, p) => acc + p.digits * 10n ** BigInt(scale - p.scale), 0n);
  const text = (total < 0n ? -total : total).toString().padStart(scale + 1, '0');
  const exact = scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`;
  return Number(total < 0n ? `-${exact}` : exact);
}

/**
 * The result itself, or the generic text when its serialized form is longer than the tool's
 * `resultMaxChars` (the connector's, or the tool's own where the spec sets a smaller one).
 */
export function capResult<T>(ctx: CasesContextWith<'generic', { readonly resultMaxChars: number }>, result: T): T {
  if (JSON.stringify(result ?? null).length > ctx.limits.resultMaxChars) ctx.fail('generic');
  return result;
}

/** Enum literals discovered from introspection are inlined; anything odd is refused. */
export function enumLiteral(ctx: CasesCallContext, value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) ctx.fail('generic');
  return value;
}
