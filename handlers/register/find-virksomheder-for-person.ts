import type { RegisterHandler } from '#generated/register/contract.ts';
import { boundedSize, search } from './client.ts';
import { mapPerson, type Person } from './mapping.ts';
import { personSearchBody } from './queries.ts';

/** `register__find_virksomheder_for_person`: one person per matching participant, with their companies. */
export const findVirksomhederForPerson: RegisterHandler<'find_virksomheder_for_person'> = async (args, ctx) => {
  const result = await search(ctx, 'deltager', personSearchBody(args.navn, boundedSize(args.size, ctx)));
  const personer = result.hits.map((hit) => mapPerson(hit.source, hit.id)).filter((p): p is Person => p !== undefined);
  return { total: result.total, personer };
};
