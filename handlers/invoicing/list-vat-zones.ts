import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_vat_zones`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listVatZones: InvoicingHandler<'list_vat_zones'> = stub('invoicing', 'list_vat_zones');
