import type { ErpHandler } from '#generated/erp/contract.ts';
import { readEnvironments } from './client.ts';

/** `GET /environments/v1.2`: Business Central environments only, `type` normalised, missing fields null. */
export const listEnvironments: ErpHandler<'list_environments'> = async (_args, ctx) => {
  const { items } = await readEnvironments(ctx);
  return { count: items.length, items: [...items] };
};
