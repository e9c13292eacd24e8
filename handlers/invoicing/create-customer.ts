// POST /customers (upstreams/invoicing.md §2 "Writes"): the preview is built locally, without a
// request; references are sent as `{ xNumber }`, `layout` always (§3 #3), optional fields only
// when supplied (§3 #4).
import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { customerResult, type Row, sendWrite } from './write-wire.ts';

const OPTIONAL = [
  'customerNumber',
  'email',
  'address',
  'city',
  'zip',
  'country',
  'telephoneAndFaxNumber',
  'corporateIdentificationNumber',
  'vatNumber',
  'ean',
] as const;

export const createCustomer: InvoicingHandler<'create_customer'> = async (args, ctx) => {
  const body: Row = {
    name: args.name,
    currency: args.currency,
    customerGroup: { customerGroupNumber: args.customerGroupNumber },
    paymentTerms: { paymentTermsNumber: args.paymentTermsNumber },
    vatZone: { vatZoneNumber: args.vatZoneNumber },
    layout: { layoutNumber: args.layoutNumber },
  };
  for (const key of OPTIONAL) if (args[key] !== undefined) body[key] = args[key];
  const outcome = await sendWrite(
    ctx,
    { method: 'POST', path: '/customers', body },
    ctx.text('previewCreateCustomer', { name: args.name, currency: args.currency }),
  );
  if ('preview' in outcome) return outcome.preview;
  return customerResult(outcome.body);
};
