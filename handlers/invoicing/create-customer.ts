import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__create_customer`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const createCustomer: InvoicingHandler<'create_customer'> = stub('invoicing', 'create_customer');
