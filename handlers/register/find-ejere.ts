import type { RegisterHandler } from '#generated/register/contract.ts';
import { search } from './client.ts';
import { mapOwners } from './mapping.ts';
import { OWNERS_SOURCE, companyByCvrBody } from './queries.ts';

/** `register__find_ejere`: owners, management, founders and auditors of a company, or `{ found: false }`. */
export const findEjere: RegisterHandler<'find_ejere'> = async (args, ctx) => {
  const result = await search(ctx, 'virksomhed', companyByCvrBody(args.cvrNummer, OWNERS_SOURCE));
  const hit = result.hits[0];
  if (!hit) return { found: false, cvrNummer: args.cvrNummer };
  return mapOwners(hit.source, args.cvrNummer);
};
