// GET /invoices/booked/{n} or /invoices/drafts/{n} → POST /invoices/drafts (upstreams/invoicing.md
// §3 #7): the source is read live (also for the preview); only the fields a new draft takes are
// kept (`currency customer date dueDate paymentTerms layout recipient notes references delivery`),
// lines as `{ description product quantity unitNetPrice discountPercentage unit }`; invoice numbers,
// amounts, margins, remainders, `pdf sent soap templates self` are dropped; then the overrides.
// The source is never changed, and the new draft is never booked.
import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import {
  cleanCopy,
  createdDraftResult,
  isRow,
  lineBody,
  notesBody,
  readRecord,
  reference,
  type Row,
  sendWrite,
} from './write-wire.ts';

/** Kept as they are (without `self` links and null values). */
const KEPT = ['currency', 'date', 'dueDate', 'delivery'] as const;
/**
 * Kept with their own references (`recipient.vatZone`, `recipient.attention`,
 * `references.salesPerson`, `references.customerContact`, `references.vendorReference`) written as
 * a write takes a reference, `{ xNumber }`: not the read's `name`, `enabledForCustomer` or `self`.
 */
const WITH_REFERENCES = ['recipient', 'references'] as const;
/** Kept as references `{ xNumber }`. */
const REFERENCES = ['customer', 'paymentTerms', 'layout'] as const;

/** A copied line: only what a new line takes; amounts are recalculated upstream. */
function copiedLine(line: Row): Row {
  const out: Row = {};
  if (typeof line.description === 'string') out.description = line.description;
  if (isRow(line.product) && line.product.productNumber !== undefined && line.product.productNumber !== null)
    out.product = { productNumber: line.product.productNumber };
  for (const key of ['quantity', 'unitNetPrice', 'discountPercentage'] as const)
    if (typeof line[key] === 'number') out[key] = line[key];
  if (isRow(line.unit) && typeof line.unit.unitNumber === 'number') out.unit = { unitNumber: line.unit.unitNumber };
  return out;
}

export const duplicateInvoice: InvoicingHandler<'duplicate_invoice'> = async (args, ctx) => {
  const source = await readRecord(
    ctx,
    `/invoices/${args.source === 'booked' ? 'booked' : 'drafts'}/${args.invoiceNumber}`,
  );
  const body: Row = {};
  for (const key of KEPT) {
    const value = source[key];
    if (value === null || value === undefined) continue;
    body[key] = isRow(value) ? cleanCopy(value) : value;
  }
  for (const key of WITH_REFERENCES) {
    const value = source[key];
    if (!isRow(value)) continue;
    const copy = cleanCopy(value);
    for (const field of Object.keys(copy)) {
      const inner = value[field];
      if (!isRow(inner)) continue;
      // From the source (`cleanCopy` has dropped its `self`, which may be its only identifier).
      const ref = reference(inner);
      if (ref) copy[field] = ref;
      else delete copy[field];
    }
    if (Object.keys(copy).length) body[key] = copy;
  }
  for (const key of REFERENCES) {
    const ref = reference(source[key]);
    if (ref) body[key] = ref;
  }
  const notes = notesBody(isRow(source.notes) ? source.notes : undefined, args);
  if (notes) body.notes = notes;
  if (args.newCustomerNumber !== undefined) body.customer = { customerNumber: args.newCustomerNumber };
  if (args.date !== undefined) body.date = args.date;
  if (args.dueDate !== undefined) body.dueDate = args.dueDate;
  body.lines = args.replaceLines
    ? args.replaceLines.map(lineBody)
    : (Array.isArray(source.lines) ? source.lines : []).filter(isRow).map(copiedLine);
  const summary = ctx.text('previewDuplicateInvoice', { source: args.source, invoice_number: args.invoiceNumber });
  const outcome = await sendWrite(ctx, { method: 'POST', path: '/invoices/drafts', body }, summary);
  if ('preview' in outcome) return outcome.preview;
  return createdDraftResult(outcome.body);
};
