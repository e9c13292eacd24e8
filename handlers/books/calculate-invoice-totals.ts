import type { BooksHandler } from '#generated/books/contract.ts';
import { camelRow, dineroJson, objectBody, orgPath } from './client.ts';

/** `POST /v1/{o}/invoices/fetch`: totals, VAT and payment date of the given lines; a read-only calculator. */
export const calculateInvoiceTotals: BooksHandler<'calculate_invoice_totals'> = async (args, ctx) => {
  // The request body in the upstream's casing (`InvoiceCreateFetchModel`); only what was given.
  const lines = args.productLines.map((line) => ({
    ProductGuid: line.productGuid,
    Description: line.description,
    Comments: line.comments,
    Quantity: line.quantity,
    AccountNumber: line.accountNumber,
    Unit: line.unit,
    Discount: line.discount,
    LineType: line.lineType,
    BaseAmountValue: line.baseAmountValue,
  }));
  const json = {
    ProductLines: lines,
    ContactGuid: args.contactGuid,
    Date: args.date,
    Currency: args.currency,
    Language: args.language,
    PaymentConditionType: args.paymentConditionType,
    PaymentConditionNumberOfDays: args.paymentConditionNumberOfDays,
    ShowLinesInclVat: args.showLinesInclVat,
  };
  // A POST to the "fetch" calculator: it persists nothing (books.md §1).
  return camelRow(
    objectBody(
      await dineroJson(ctx, { method: 'POST', path: orgPath(args.organizationId, '/invoices/fetch'), json }),
      'the invoice calculation',
    ),
  );
};
