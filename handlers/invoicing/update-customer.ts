import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__update_customer`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const updateCustomer: InvoicingHandler<'update_customer'> = stub('invoicing', 'update_customer');
