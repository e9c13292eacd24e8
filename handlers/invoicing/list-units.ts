import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_units`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listUnits: InvoicingHandler<'list_units'> = stub('invoicing', 'list_units');
