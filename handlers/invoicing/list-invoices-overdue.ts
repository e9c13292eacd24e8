import type { InvoicingHandler } from '../../generated/invoicing/contract.ts';
import { stub } from '#runtime/handler-api/stub.ts';

/** Generated stub for `invoicing__list_invoices_overdue`: replace it with the upstream logic (see the spec in specs/invoicing.yaml). */
export const listInvoicesOverdue: InvoicingHandler<'list_invoices_overdue'> = stub('invoicing', 'list_invoices_overdue');
