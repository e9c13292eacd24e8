import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__download_invoice_pdf`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const downloadInvoicePdf: InvoicingHandler<'download_invoice_pdf'> = stub('invoicing', 'download_invoice_pdf');
