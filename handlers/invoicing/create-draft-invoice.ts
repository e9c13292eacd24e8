// POST /invoices/drafts (upstreams/invoicing.md §2 "Writes", §3 #8, #9): flat arguments become the
// nested body; `date` defaults to today in the deployment's time zone. The preview is built
// locally, without a request. A draft has no ledger effect; nothing here can book it.
import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { localDate } from '#runtime/handler-api/calendar.ts';
import { createdDraftResult, lineBody, notesBody, type Row, sendWrite } from './write-wire.ts';

export const createDraftInvoice: InvoicingHandler<'create_draft_invoice'> = async (args, ctx) => {
  const body: Row = {
    date: args.date ?? localDate(ctx.now(), ctx.timeZone),
    currency: args.currency,
    customer: { customerNumber: args.customerNumber },
    paymentTerms: { paymentTermsNumber: args.paymentTermsNumber },
    layout: { layoutNumber: args.layoutNumber },
    recipient: { name: args.recipientName, vatZone: { vatZoneNumber: args.recipientVatZoneNumber } },
    lines: args.lines.map(lineBody),
  };
  if (args.dueDate !== undefined) body.dueDate = args.dueDate;
  const notes = notesBody(undefined, args);
  if (notes) body.notes = notes;
  const summary = ctx.text('previewCreateDraftInvoice', {
    customer_number: args.customerNumber,
    currency: args.currency,
    lines: args.lines.length,
  });
  const outcome = await sendWrite(ctx, { method: 'POST', path: '/invoices/drafts', body }, summary);
  if ('preview' in outcome) return outcome.preview;
  return createdDraftResult(outcome.body);
};
