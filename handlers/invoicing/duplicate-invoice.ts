import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__duplicate_invoice`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const duplicateInvoice: InvoicingHandler<'duplicate_invoice'> = stub('invoicing', 'duplicate_invoice');
