import type { LedgerHandler } from '#generated/ledger/contract.ts';
import { openSession } from './client.ts';
import { readWholeSet } from './list-result.ts';

/** `GLVatClient`, unfiltered. */
export const listVatCodes: LedgerHandler<'list_vat_codes'> = async (args, ctx) =>
  readWholeSet(await openSession(ctx), {
    entity: 'GLVatClient',
    filters: [],
    limit: args.limit,
    maxScanRows: ctx.limits.maxScanRows,
  });
