import type { CasesHandler } from '#generated/cases/contract.ts';
import { runQuery } from './graphql-client.ts';
import { capResult } from './shared.ts';

/** A free read-only query: checked, sent as is, and the upstream `data` returned unchanged. */
export const graphqlQuery: CasesHandler<'graphql_query'> = async (args, ctx) => {
  const data = await runQuery<Record<string, unknown>>(ctx, args.query, args.variables as Record<string, unknown> | undefined);
  return capResult(ctx, data);
};
