// GET /customers/{n} → merge → PUT /customers/{n} (upstreams/invoicing.md §3 #6): the upstream's
// PUT replaces the whole record, so the current record is read live (also for the preview), its
// server-owned fields and link properties are stripped, references become `{ xNumber }`, null
// values are dropped, and only the allow-listed fields supplied are merged over it. Keys such as
// `__proto__`, `constructor` and `prototype` never become properties (write-wire.ts cleanCopy).
import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { cleanCopy, customerResult, isRow, readRecord, reference, sendWrite } from './write-wire.ts';

/** Read-only or server-computed fields and link properties, never written back. */
const SERVER_OWNED: ReadonlySet<string> = new Set([
  'balance',
  'dueAmount',
  'lastUpdated',
  'self',
  'contacts',
  'deliveryLocations',
  'invoices',
  'totals',
  'templates',
  'metaData',
]);
/** The fields the caller may change, as they go into the record. */
const PLAIN = [
  'name',
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
const BY_NUMBER = [
  ['paymentTermsNumber', 'paymentTerms'],
  ['customerGroupNumber', 'customerGroup'],
  ['vatZoneNumber', 'vatZone'],
  ['layoutNumber', 'layout'],
] as const;

export const updateCustomer: InvoicingHandler<'update_customer'> = async (args, ctx) => {
  const path = `/customers/${args.customerNumber}`;
  const current = await readRecord(ctx, path);
  const body = cleanCopy(current, SERVER_OWNED);
  // Every object a customer still holds once its link properties are gone is a reference
  // (`customerGroup paymentTerms vatZone layout salesPerson attention customerContact
  // defaultDeliveryLocation priceGroup …`): written as `{ xNumber }`, or `{ self }` when it has no
  // number (a write takes either, upstreams/invoicing.md §2 "Conventions").
  for (const key of Object.keys(body)) {
    if (!isRow(current[key])) continue;
    const ref = reference(current[key]);
    if (ref) body[key] = ref;
    else delete body[key];
  }
  const changed: string[] = [];
  for (const key of PLAIN) {
    if (args[key] === undefined) continue;
    body[key] = args[key];
    changed.push(key);
  }
  for (const [argument, property] of BY_NUMBER) {
    const value = args[argument];
    if (value === undefined) continue;
    body[property] = { [argument]: value };
    changed.push(argument);
  }
  // The record keeps its number: the path names the customer.
  body.customerNumber = args.customerNumber;
  const summary = ctx.text('previewUpdateCustomer', {
    customer_number: args.customerNumber,
    fields: changed.length ? changed.join(', ') : '(none)',
  });
  const outcome = await sendWrite(ctx, { method: 'PUT', path, body }, summary);
  if ('preview' in outcome) return outcome.preview;
  return customerResult(outcome.body);
};
