import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { accountYearPath } from './paths.ts';
import { economicRead, isRow } from './wire.ts';

/**
 * `invoicing__get_account_year_total`: GET /accounts/{accountNumber}/accounting-years/{year}/totals,
 * one object, the year encoded (upstreams/invoicing.md §2, §3 #1). The sibling
 * /accounting-years/{year}/totals is a collection; should this one answer in the collection
 * envelope too, its one row is the total.
 */
export const getAccountYearTotal: InvoicingHandler<'get_account_year_total'> = async (args, ctx) => {
  const body = await economicRead(ctx, `${accountYearPath(args.accountNumber, args.year)}/totals`);
  if (!isRow(body)) throw new Error('e-conomic answered an account year total with something other than an object');
  const rows = body['collection'];
  if (!Array.isArray(rows)) return body;
  const row = rows.find(
    (r) =>
      isRow(r) &&
      (!isRow(r['account']) ||
        r['account']['accountNumber'] === undefined ||
        r['account']['accountNumber'] === args.accountNumber),
  );
  if (!isRow(row)) throw new Error('e-conomic answered an account year total with an empty collection');
  return row;
};
