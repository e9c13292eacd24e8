import type { BooksHandler } from '#generated/books/contract.ts';
import { countedList, orgPath, segment, since } from './client.ts';

/** `GET /v1/{o}/invoices/{guid}/mailouts` with `changesSince` and `includeSms`. */
export const listInvoiceMailouts: BooksHandler<'list_invoice_mailouts'> = async (args, ctx) => {
  const { count, rows } = await countedList(
    ctx,
    {
      path: orgPath(args.organizationId, `/invoices/${segment(args.invoiceGuid)}/mailouts`),
      query: { changesSince: since(args.changesSince), includeSms: args.includeSms },
    },
    'the mail-outs',
  );
  return { count, mailouts: rows };
};
