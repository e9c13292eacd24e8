import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__get_customer`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const getCustomer: InvoicingHandler<'get_customer'> = stub('invoicing', 'get_customer');
