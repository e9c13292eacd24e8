import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_customer_groups`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listCustomerGroups: InvoicingHandler<'list_customer_groups'> = stub('invoicing', 'list_customer_groups');
