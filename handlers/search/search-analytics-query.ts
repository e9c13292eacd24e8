import type { SearchHandler } from '#generated/search/contract.ts';
import type { SearchAnalyticsQueryArgs } from '#generated/search/types.ts';
import { type AnalyticsBody, checkPeriod, queryAnalytics } from './client.ts';

type RequestBody = SearchAnalyticsQueryArgs['requestBody'];

/**
 * The body sent upstream, rebuilt field by field from the allow-list of DECISIONS §18. The input
 * schema already refused every other key at every depth (nothing reaches the upstream or the
 * meter then); rebuilding keeps it so even if a validator changed.
 */
function allowListed(body: RequestBody): AnalyticsBody {
  const out: { -readonly [K in keyof AnalyticsBody]: AnalyticsBody[K] } = {
    startDate: body.startDate,
    endDate: body.endDate,
  };
  if (body.dimensions !== undefined) out.dimensions = [...body.dimensions];
  if (body.type !== undefined) out.type = body.type;
  if (body.dimensionFilterGroups !== undefined)
    out.dimensionFilterGroups = body.dimensionFilterGroups.map((group) => ({
      ...(group.groupType !== undefined ? { groupType: group.groupType } : {}),
      ...(group.filters !== undefined
        ? {
            filters: group.filters.map((filter) => ({
              ...(filter.dimension !== undefined ? { dimension: filter.dimension } : {}),
              ...(filter.operator !== undefined ? { operator: filter.operator } : {}),
              ...(filter.expression !== undefined ? { expression: filter.expression } : {}),
            })),
          }
        : {}),
    }));
  if (body.aggregationType !== undefined) out.aggregationType = body.aggregationType;
  if (body.rowLimit !== undefined) out.rowLimit = body.rowLimit;
  if (body.startRow !== undefined) out.startRow = body.startRow;
  if (body.dataState !== undefined) out.dataState = body.dataState;
  return out;
}

/** The caller's body on the allow-list, forwarded; the raw rows back (`metadata` dropped: not in the contract). */
export const searchAnalyticsQuery: SearchHandler<'search_analytics_query'> = async (args, ctx) => {
  checkPeriod(ctx, args.requestBody.startDate, args.requestBody.endDate);
  const { rows, responseAggregationType } = await queryAnalytics(ctx, args.siteUrl, allowListed(args.requestBody));
  return { siteUrl: args.siteUrl, responseAggregationType, rows };
};
