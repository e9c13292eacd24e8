import type { CasesHandler } from '#generated/cases/contract.ts';
import { stub } from '#runtime/stub.ts';

/** Generated stub for `cases__list_case_sales_invoices`: replace it with the upstream logic (see the spec in specs/cases.yaml). */
export const listCaseSalesInvoices: CasesHandler<'list_case_sales_invoices'> = stub('cases', 'list_case_sales_invoices');
