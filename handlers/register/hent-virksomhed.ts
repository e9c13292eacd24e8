import type { RegisterHandler } from '#generated/register/contract.ts';
import { search } from './client.ts';
import { mapCompanyDetail } from './mapping.ts';
import { COMPANY_DETAIL_SOURCE, companyByCvrBody } from './queries.ts';

/** `register__hent_virksomhed`: one company's master data with capital, or `{ found: false }`. */
export const hentVirksomhed: RegisterHandler<'hent_virksomhed'> = async (args, ctx) => {
  const result = await search(ctx, 'virksomhed', companyByCvrBody(args.cvrNummer, COMPANY_DETAIL_SOURCE));
  const company = result.hits.map((hit) => mapCompanyDetail(hit.source)).find((c) => c?.cvrNummer === args.cvrNummer);
  return company ?? { found: false, cvrNummer: args.cvrNummer };
};
