import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_account_entries`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listAccountEntries: InvoicingHandler<'list_account_entries'> = stub('invoicing', 'list_account_entries');
