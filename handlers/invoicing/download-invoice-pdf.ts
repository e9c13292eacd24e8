import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { UpstreamError } from '#runtime/handler-api/upstream-types.ts';
import { encodeIdentifier } from './paths.ts';
import { economicGet, economicGetBytes, isRow, linkOnBase, rejected } from './wire.ts';

/** The first bytes of every PDF file. */
const PDF_MAGIC = Buffer.from('%PDF');

/**
 * `invoicing__download_invoice_pdf`: GET /invoices/booked/{n}/pdf, raw `application/pdf` bytes,
 * base64-encoded (upstreams/invoicing.md §2, §3 #12). A body that is not a PDF is a failure.
 * The path is not a documented heading (§5: "follow the invoice's pdf link"): when it answers 404,
 * the booked invoice is read and its own link followed once — `pdf.download` (the API's field) or
 * `pdf.self` (the description's) — if it names another address; a link on another host is asked of
 * the configured upstream (its path), so the tokens never leave it.
 */
export const downloadInvoicePdf: InvoicingHandler<'download_invoice_pdf'> = async (args, ctx) => {
  const invoicePath = `/invoices/booked/${encodeIdentifier(args.bookedInvoiceNumber)}`;
  const path = `${invoicePath}/pdf`;
  let bytes: Buffer;
  try {
    bytes = await economicGetBytes(ctx, path);
  } catch (error) {
    if (!(error instanceof UpstreamError && error.status === 404)) throw error;
    const found = await pdfLink(ctx, invoicePath);
    const link = found === undefined ? undefined : linkOnBase(found, ctx.upstream.baseUrl);
    if (link === undefined || sameAddress(link, path, ctx.upstream.baseUrl)) throw error;
    bytes = await economicGetBytes(ctx, link);
  }
  if (!bytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC))
    throw new Error('e-conomic answered an invoice PDF with bytes that are not a PDF');
  return {
    bookedInvoiceNumber: args.bookedInvoiceNumber,
    contentType: 'application/pdf',
    pdfBase64: bytes.toString('base64'),
  };
};

/** The invoice's PDF link (`pdf.download`, else `pdf.self`), or undefined when it has none. */
async function pdfLink(
  ctx: Parameters<typeof downloadInvoicePdf>[1],
  invoicePath: string,
): Promise<string | undefined> {
  let invoice: unknown;
  try {
    invoice = await economicGet(ctx, invoicePath);
  } catch (error) {
    return rejected(ctx, error);
  }
  const pdf = isRow(invoice) ? invoice['pdf'] : undefined;
  if (!isRow(pdf)) return undefined;
  for (const key of ['download', 'self'] as const) {
    const value = pdf[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** Whether a link (absolute on the base URL's origin, or a path on the base URL) names the path already tried. */
function sameAddress(link: string, path: string, baseUrl: string): boolean {
  const onBase = (p: string) =>
    /^https?:\/\//i.test(p) ? p : `${baseUrl.replace(/\/+$/, '')}/${p.replace(/^\/+/, '')}`;
  try {
    return new URL(onBase(link)).href === new URL(onBase(path)).href;
  } catch {
    return true;
  }
}
