import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_payment_terms`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listPaymentTerms: InvoicingHandler<'list_payment_terms'> = stub('invoicing', 'list_payment_terms');
