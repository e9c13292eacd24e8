import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_products`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listProducts: InvoicingHandler<'list_products'> = stub('invoicing', 'list_products');
