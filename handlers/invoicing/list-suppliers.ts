import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_suppliers`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listSuppliers: InvoicingHandler<'list_suppliers'> = stub('invoicing', 'list_suppliers');
