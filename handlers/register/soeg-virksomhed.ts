import type { RegisterHandler } from '#generated/register/contract.ts';
import { boundedSize, search } from './client.ts';
import { mapCompany, type Company } from './mapping.ts';
import { companySearchBody } from './queries.ts';

/** `register__soeg_virksomhed`: companies whose newest name holds every word of `query`. */
export const soegVirksomhed: RegisterHandler<'soeg_virksomhed'> = async (args, ctx) => {
  const result = await search(ctx, 'virksomhed', companySearchBody(args.query, boundedSize(args.size, ctx)));
  const companies = result.hits.map((hit) => mapCompany(hit.source)).filter((c): c is Company => c !== undefined);
  return { total: result.total, companies };
};
