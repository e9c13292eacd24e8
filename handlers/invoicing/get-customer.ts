import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { withInteger } from './list.ts';
import { encodeIdentifier } from './paths.ts';
import { economicRead, isRow } from './wire.ts';

const isCustomer = withInteger('customerNumber');

/**
 * `invoicing__get_customer`: GET /customers/{customerNumber} (upstreams/invoicing.md §2); `dueAmount` may be absent (§3
 * #5).
 */
export const getCustomer: InvoicingHandler<'get_customer'> = async (args, ctx) => {
  const body = await economicRead(ctx, `/customers/${encodeIdentifier(args.customerNumber)}`);
  if (!isRow(body) || !isCustomer(body)) throw new Error('e-conomic answered a customer read without a customerNumber');
  return body;
};
