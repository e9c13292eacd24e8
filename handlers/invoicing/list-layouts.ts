import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_layouts`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listLayouts: InvoicingHandler<'list_layouts'> = stub('invoicing', 'list_layouts');
