import type { RegisterHandler } from '#generated/register/contract.ts';
import { boundedSize, search } from './client.ts';
import { mapProductionUnit, type ProductionUnit } from './mapping.ts';
import { unitsByCvrBody } from './queries.ts';

/** `register__find_produktionsenheder`: the company's current production units, ceased ones included. */
export const findProduktionsenheder: RegisterHandler<'find_produktionsenheder'> = async (args, ctx) => {
  const result = await search(ctx, 'produktionsenhed', unitsByCvrBody(args.cvrNummer, boundedSize(args.size, ctx)));
  const units = result.hits
    .map((hit) => mapProductionUnit(hit.source))
    .filter((u): u is ProductionUnit => u !== undefined);
  return { total: result.total, units };
};
