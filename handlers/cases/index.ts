import type { CasesHandlers } from '#generated/cases/contract.ts';
import { listCases } from './list-cases.ts';
import { findCases } from './find-cases.ts';
import { getCase } from './get-case.ts';
import { getCaseWorkSummary } from './get-case-work-summary.ts';
import { listCaseHours } from './list-case-hours.ts';
import { listCaseSalesInvoices } from './list-case-sales-invoices.ts';
import { introspectSchema } from './introspect-schema.ts';
import { describeType } from './describe-type.ts';
import { graphqlQuery } from './graphql-query.ts';

/** Every Case management tool's handler; `satisfies` makes a missing, extra or mistyped one a type error. */
export const casesHandlers = {
  list_cases: listCases,
  find_cases: findCases,
  get_case: getCase,
  get_case_work_summary: getCaseWorkSummary,
  list_case_hours: listCaseHours,
  list_case_sales_invoices: listCaseSalesInvoices,
  introspect_schema: introspectSchema,
  describe_type: describeType,
  graphql_query: graphqlQuery
} satisfies CasesHandlers;
