import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { economicGet, isRow } from './wire.ts';

/** `invoicing__get_invoice_totals`: GET /invoices/totals (upstreams/invoicing.md §2), passed through. */
export const getInvoiceTotals: InvoicingHandler<'get_invoice_totals'> = async (_args, ctx) => {
  const body = await economicGet(ctx, '/invoices/totals');
  if (!isRow(body)) throw new Error('e-conomic answered the invoice totals with something other than an object');
  return body;
};
