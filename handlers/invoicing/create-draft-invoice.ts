import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__create_draft_invoice`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const createDraftInvoice: InvoicingHandler<'create_draft_invoice'> = stub('invoicing', 'create_draft_invoice');
