import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__validate_connection`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const validateConnection: InvoicingHandler<'validate_connection'> = stub('invoicing', 'validate_connection');
