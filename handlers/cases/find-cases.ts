import type { CasesHandler } from '#generated/cases/contract.ts';
import { runQuery } from './graphql-client.ts';
import { caseSelection, schemaMap, toCase, type CaseObject } from './schema-map.ts';
import { capResult } from './shared.ts';

/**
 * Scans the most recently updated cases (updatedAt descending, pages of 200, `maxPages` pages)
 * and matches `text` case-insensitively on caseNumber, description and customer name.
 */
export const findCases: CasesHandler<'find_cases'> = async (args, ctx) => {
  const map = await schemaMap(ctx);
  const pageSize = ctx.limits.upstreamPageSize;
  const query = `query FindCases($cursor: String, $limit: Int!) {
  cases(pagination: { cursor: $cursor, limit: $limit }, orderBy: [{ field: "updatedAt", direction: DESC }]) {
    items { ${caseSelection(map)} }
    nextCursor
  }
}`;
  const needle = args.text.toLocaleLowerCase('da-DK');
  const items: CaseObject[] = [];
  let cursor: string | null = null;
  let scanned = 0;
  let pagesScanned = 0;
  let more = false;
  do {
    const data: { cases: { items: Array<Record<string, unknown>>; nextCursor: string | null } | null } = await runQuery(ctx, query, { cursor, limit: pageSize });
    const page = data.cases?.items ?? [];
    pagesScanned++;
    scanned += page.length;
    for (const raw of page) {
      const c = toCase(raw);
      const haystack = [c.caseNumber, c.description, c.customer?.name]
        .filter((v) => typeof v === 'string')
        .join('\n')
        .toLocaleLowerCase('da-DK');
      if (haystack.includes(needle)) items.push(c);
    }
    cursor = data.cases?.nextCursor ?? null;
    more = cursor !== null && page.length > 0;
  } while (more && pagesScanned < args.maxPages);
  const truncated = more;
  return capResult(ctx, {
    count: items.length,
    items,
    scanned,
    pagesScanned,
    truncated,
    ...(truncated ? { note: ctx.text('findCasesTruncated', { scanned, pages: pagesScanned }) } : {}),
    amountsNote: ctx.text('amountsNote'),
  });
};
