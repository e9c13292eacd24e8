import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { encodeIdentifier } from './paths.ts';
import { economicGetBytes } from './wire.ts';

/** The first bytes of every PDF file. */
const PDF_MAGIC = Buffer.from('%PDF');

/**
 * `invoicing__download_invoice_pdf`: GET /invoices/booked/{n}/pdf, raw `application/pdf` bytes,
 * base64-encoded (upstreams/invoicing.md §2, §3 #12). A body that is not a PDF is a failure.
 */
export const downloadInvoicePdf: InvoicingHandler<'download_invoice_pdf'> = async (args, ctx) => {
  const bytes = await economicGetBytes(ctx, `/invoices/booked/${encodeIdentifier(args.bookedInvoiceNumber)}/pdf`);
  if (!bytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) throw new Error('e-conomic answered an invoice PDF with bytes that are not a PDF');
  return { bookedInvoiceNumber: args.bookedInvoiceNumber, contentType: 'application/pdf', pdfBase64: bytes.toString('base64') };
};
