import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_customers`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listCustomers: InvoicingHandler<'list_customers'> = stub('invoicing', 'list_customers');
