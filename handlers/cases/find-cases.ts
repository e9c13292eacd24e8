import type { CasesHandler } from '#generated/cases/contract.ts';
import type { FindCasesResult } from '#generated/cases/types.ts';
import { runQuery } from './graphql-client.ts';
import { type CaseObject, toCase } from './case-object.ts';
import { caseSelection, casesOrderBy, type SchemaMap, schemaMap, withLearnedShapes } from './schema-map.ts';
import { capResult } from './shared.ts';

/**
 * Scans the most recently updated cases (updatedAt descending, pages of 200, `maxPages` pages)
 * and matches `text` case-insensitively on caseNumber, description and customer name. When the
 * matches would not fit the result cap, the most recently updated that fit are returned, with
 * `matched` counting all of them and a note saying how to narrow the search.
 */
export const findCases: CasesHandler<'find_cases'> = async (args, ctx) => {
  const pageSize = ctx.limits.upstreamPageSize;
  const needle = args.text.toLocaleLowerCase('da-DK');
  const scan = async (map: SchemaMap) => {
    const query = `query FindCases($cursor: String, $limit: Int!) {
  cases(pagination: { cursor: $cursor, limit: $limit }${casesOrderBy(map, 'updatedAt', 'DESC')}) {
    items { ${caseSelection(map)} }
    nextCursor
  }
}`;
    const matches: CaseObject[] = [];
    let cursor: string | null = null;
    let scanned = 0;
    let pagesScanned = 0;
    let more = false;
    do {
      const data: { cases: { items: Array<Record<string, unknown>>; nextCursor: string | null } | null } =
        await runQuery(ctx, query, { cursor, limit: pageSize });
      const page = data.cases?.items ?? [];
      pagesScanned++;
      scanned += page.length;
      ctx.progress(pagesScanned, args.maxPages, `${scanned} cases scanned`);
      for (const raw of page) {
        const c = toCase(raw);
        const haystack = [c.caseNumber, c.description, c.customer?.name]
          .filter((v) => typeof v === 'string')
          .join('\n')
          .toLocaleLowerCase('da-DK');
        if (haystack.includes(needle)) matches.push(c);
      }
      cursor = data.cases?.nextCursor ?? null;
      more = cursor !== null && page.length > 0;
    } while (more && pagesScanned < args.maxPages);
    return { matches, scanned, pagesScanned, more };
  };
  const { matches, scanned, pagesScanned, more } = await withLearnedShapes(ctx, await schemaMap(ctx), scan);
  const truncated = more;
  const maxChars = ctx.limits.resultMaxChars;
  const amountsNote = ctx.text('amountsNote');
  /** The result with the `count` most recently updated matches (the scan order is newest first). */
  const resultOf = (count: number) => {
    const notes: string[] = [];
    if (truncated) notes.push(ctx.text('findCasesTruncated', { scanned, pages: pagesScanned }));
    if (count < matches.length)
      notes.push(ctx.text('findCasesOverflow', { matched: matches.length, scanned, count, max_chars: maxChars }));
    const result: FindCasesResult & { amountsNote: string } = {
      count,
      matched: matches.length,
      items: count < matches.length ? matches.slice(0, count) : matches,
      scanned,
      pagesScanned,
      truncated,
      ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
      amountsNote,
    };
    return result;
  };
  const fits = (count: number) => JSON.stringify(resultOf(count)).length <= maxChars;
  if (fits(matches.length)) return resultOf(matches.length);
  // The largest prefix that fits (the serialized length grows with the count): a binary search
  // over whole results, so the measure is exactly the one the cap applies.
  let low = 0;
  let high = matches.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  // Not even an empty list fits only if the rest of the result is over the cap: the generic text.
  return capResult(ctx, resultOf(low));
};
